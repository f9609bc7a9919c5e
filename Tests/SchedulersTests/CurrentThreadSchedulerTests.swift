import CAllocationCounter
import Foundation
import XCTest

@testable import Schedulers

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The trampoline: runs at once when idle, queues FIFO when nested, one
/// queue per thread, constant stack for recursion (guarantee 5 for disposal).
final class CurrentThreadSchedulerTests: XCTestCase {
    private let scheduler = CurrentThreadScheduler.instance

    /// The scheduler is a value without state: two instances are the same
    /// scheduler, so a `schedule` on one inside an action of the other is
    /// queued behind that action, not run at once.
    func testEveryInstanceIsTheSameScheduler() {
        let first = CurrentThreadScheduler.instance
        let second = CurrentThreadScheduler.instance
        var order: [String] = []
        _ = first.schedule(()) { _ in
            _ = second.schedule(()) { _ in
                order.append("nested")
                return Disposables.create()
            }
            order.append("outer")
            return Disposables.create()
        }
        XCTAssertEqual(order, ["outer", "nested"])
        XCTAssertTrue(CurrentThreadScheduler.isScheduleRequired)
    }

    func testIsScheduleRequiredIsTrueOutsideAndFalseInsideAnAction() {
        XCTAssertTrue(CurrentThreadScheduler.isScheduleRequired)
        var insideOuter: Bool?
        var insideNested: Bool?
        _ = scheduler.schedule(()) { _ in
            insideOuter = CurrentThreadScheduler.isScheduleRequired
            _ = self.scheduler.schedule(()) { _ in
                insideNested = CurrentThreadScheduler.isScheduleRequired
                return Disposables.create()
            }
            return Disposables.create()
        }
        XCTAssertEqual(insideOuter, false)
        XCTAssertEqual(insideNested, false)
        XCTAssertTrue(CurrentThreadScheduler.isScheduleRequired, "true again once the trampoline has drained")
    }

    func testFirstScheduleRunsAtOnceAndReturnsWhatTheActionReturned() {
        let returned = DisposalCounter()
        var ranWith: Int?
        let disposable = scheduler.schedule(42) { value in
            ranWith = value
            return returned
        }
        XCTAssertEqual(ranWith, 42, "ran before schedule returned")
        XCTAssertTrue(disposable as AnyObject === returned)
    }

    func testNestedSchedulesRunAfterTheCurrentActionReturnsInFIFOOrder() {
        var log: [String] = []
        _ = scheduler.schedule(()) { _ in
            log.append("outer begins")
            for name in ["first", "second", "third"] {
                _ = self.scheduler.schedule(name) { name in
                    log.append(name)
                    if name == "first" {
                        _ = self.scheduler.schedule("nested in first") { name in
                            log.append(name)
                            return Disposables.create()
                        }
                    }
                    return Disposables.create()
                }
            }
            log.append("outer ends")
            return Disposables.create()
        }
        XCTAssertEqual(log, ["outer begins", "outer ends", "first", "second", "third", "nested in first"])
    }

    /// A state of several words, passed to the action by address.
    private struct WideState: Equatable {
        var name: String
        var level: Int
        var weight: Double
        var tags: [Int]
    }

    /// Queues a chain of `levels` nested schedules, each with the same action
    /// and the next state, on `scheduler` (an existential when the caller
    /// passes one, so the trampoline runs unspecialised), and returns the
    /// states the actions received, in order.
    private func chainOfStates<State>(
        on scheduler: ImmediateSchedulerType, levels: Int, first: State, next: @escaping (State) -> State
    ) -> [State] {
        var received: [State] = []
        var action: ((State) -> Disposable)!
        action = { state in
            received.append(state)
            if received.count < levels {
                _ = scheduler.schedule(next(state), action: action)
            }
            return Disposables.create()
        }
        _ = scheduler.schedule(first, action: action)
        action = nil
        return received
    }

    func testQueuedActionsReceiveTheirStateWhateverItsShape() {
        let existential: ImmediateSchedulerType = scheduler
        XCTAssertEqual(
            chainOfStates(on: existential, levels: 5, first: 1) { $0 * 2 }, [1, 2, 4, 8, 16])
        let wide = WideState(name: "a", level: 0, weight: 0.5, tags: [7])
        let wideStates = chainOfStates(on: existential, levels: 4, first: wide) { state in
            WideState(
                name: state.name + "b", level: state.level + 1, weight: state.weight * 2, tags: state.tags + [state.level])
        }
        XCTAssertEqual(wideStates.map(\.name), ["a", "ab", "abb", "abbb"])
        XCTAssertEqual(wideStates.map(\.level), [0, 1, 2, 3])
        XCTAssertEqual(wideStates.map(\.weight), [0.5, 1, 2, 4])
        XCTAssertEqual(wideStates.last?.tags, [7, 0, 1, 2])
        let box = DisposalCounter()
        let sameObject = chainOfStates(on: existential, levels: 3, first: box) { $0 }
        XCTAssertEqual(sameObject.count, 3)
        XCTAssertTrue(sameObject.allSatisfy { $0 === box }, "the chain's own state, handed over at each level")
        // Directly on the scheduler's type too, and one chain after another
        // of a different state type (the spare item is then of another type).
        var direct: [String] = []
        _ = scheduler.schedule("x") { state in
            direct.append(state)
            _ = self.scheduler.schedule(state + "y") { state in
                direct.append(state)
                _ = self.scheduler.schedule(state.count) { count in
                    direct.append(String(count))
                    return Disposables.create()
                }
                return Disposables.create()
            }
            return Disposables.create()
        }
        XCTAssertEqual(direct, ["x", "xy", "2"])
    }

    func testReferenceSpellingScheduleStateActionRunsToo() {
        var ran = false
        _ = scheduler.schedule(state: ()) { _ in
            ran = true
            return Disposables.create()
        }
        XCTAssertTrue(ran)
    }

    func testChainOfQueuedSchedulesAllocatesNothingOnceTheSpareItemExists() throws {
        try XCTSkipUnless(allocation_counter_is_active() != 0, "allocation counting is off under sanitizers")
        func allocations(forLevels levels: Int) -> UInt64 {
            let chain = ScheduleChain(levels)
            let before = allocation_counter_read_thread()
            _ = scheduler.schedule(chain, action: scheduleChainLevel)
            return allocation_counter_read_thread() - before
        }
        // Unoptimised, the reuse does not happen (BenchRunner's release build
        // shows 0.00 allocs_per_schedule).
        assertChainAllocatesNothingPerLevel(allocations(forLevels:))
    }

    func testChainAfterAChainOfAnotherStateTypeStillAllocatesNoMoreThanOneItemPerLevel() throws {
        try XCTSkipUnless(allocation_counter_is_active() != 0, "allocation counting is off under sanitizers")
        func allocations(forLevels levels: Int) -> UInt64 {
            // A chain with another state type leaves its item as the thread's
            // spare, before each measured chain, so that both start alike.
            _ = scheduler.schedule(OtherScheduleChain(50), action: otherScheduleChainLevel)
            let chain = ScheduleChain(levels)
            let before = allocation_counter_read_thread()
            _ = scheduler.schedule(chain, action: scheduleChainLevel)
            return allocation_counter_read_thread() - before
        }
        // A first measurement makes the types' metadata (one-time allocations
        // when this test runs first), which the comparison must not count.
        _ = allocations(forLevels: 10)
        let single = allocations(forLevels: 1_000)
        let double = allocations(forLevels: 2_000)
        #if DEBUG
        XCTAssertLessThanOrEqual(double - single, 1_000, "at most one allocation per level")
        #else
        XCTAssertEqual(double, single, "the stale spare was replaced: no allocation per level")
        #endif
    }

    func testDroppedItemThatWasDisposedIsSkippedEvenWhenNothingElseHoldsIt() {
        var ran = false
        _ = scheduler.schedule(()) { _ in
            self.scheduler.schedule(()) { _ in
                ran = true
                return Disposables.create()
            }.dispose()
            return Disposables.create()
        }
        XCTAssertFalse(ran)
    }

    func testItemStillReferencedWeaklyIsFreedNotReusedForALaterSchedule() {
        weak var weakFirst: AnyObject?
        var ran: [String] = []
        _ = scheduler.schedule(()) { _ in
            weakFirst = self.scheduler.schedule("first") { name in
                ran.append(name)
                return Disposables.create()
            } as AnyObject
            return Disposables.create()
        }
        XCTAssertNil(weakFirst, "a weakly referenced item is freed after its run, never recycled")
        _ = scheduler.schedule(()) { _ in
            _ = self.scheduler.schedule("second") { name in
                ran.append(name)
                return Disposables.create()
            }
            return Disposables.create()
        }
        XCTAssertEqual(ran, ["first", "second"])
    }

    func testDisposingQueuedItemFromAnotherThreadSkipsIt() {
        var ran = false
        _ = scheduler.schedule(()) { _ in
            let queued = self.scheduler.schedule(()) { _ in
                ran = true
                return Disposables.create()
            }
            disposeOnAnotherThreadAndWait(queued)
            return Disposables.create()
        }
        XCTAssertFalse(ran)
    }

    func testQueuedItemFreesItsStateAfterRunningOrBeingSkipped() {
        weak var weakRan: LifetimeToken?
        weak var weakSkipped: LifetimeToken?
        _ = scheduler.schedule(()) { _ in
            let ranToken = LifetimeToken()
            let skippedToken = LifetimeToken()
            weakRan = ranToken
            weakSkipped = skippedToken
            _ = self.scheduler.schedule(ranToken) { _ in Disposables.create() }
            self.scheduler.schedule(skippedToken) { _ in Disposables.create() }.dispose()
            return Disposables.create()
        }
        XCTAssertNil(weakRan)
        XCTAssertNil(weakSkipped)
    }

    func testItemDisposedOnItsOwnThreadReleasesItsStateBeforeTheDrainReachesIt() {
        weak var weakState: LifetimeToken?
        var releasedAtDispose: Bool?
        _ = scheduler.schedule(()) { _ in
            do {
                let token = LifetimeToken()
                weakState = token
                self.scheduler.schedule(token) { _ in Disposables.create() }.dispose()
            }
            // Still inside the outer action: the drain has not reached the item.
            releasedAtDispose = weakState == nil
            return Disposables.create()
        }
        XCTAssertEqual(releasedAtDispose, true, "the state of an item disposed on its own thread is freed at dispose")
    }

    func testItemDisposedFromAnotherThreadReleasesItsStateWhenTheRunningDrainSkipsIt() {
        weak var weakState: LifetimeToken?
        _ = scheduler.schedule(()) { _ in
            do {
                let token = LifetimeToken()
                weakState = token
                disposeOnAnotherThreadAndWait(self.scheduler.schedule(token) { _ in Disposables.create() })
            }
            return Disposables.create()
        }
        XCTAssertNil(weakState, "freed by the item's own thread once its drain skipped it")
    }

    func testRecursionOfFiftyThousandLevelsNeverGrowsTheStack() {
        // Deep enough that plain recursion, at a few hundred bytes a level,
        // would need more than a default 8 MiB thread stack.
        let levels = 50_000
        var lowest = UInt.max
        var highest = UInt.min
        var deepest = 0
        let disposable = scheduler.scheduleRecursive(0) { level, recurse in
            // From C, not a local's address: AddressSanitizer keeps address-taken locals off the stack.
            let address = UInt(stack_address_of_caller_frame())
            lowest = min(lowest, address)
            highest = max(highest, address)
            deepest = level
            if level < levels {
                recurse(level + 1)
            }
        }
        disposable.dispose()
        XCTAssertEqual(deepest, levels)
        XCTAssertLessThan(highest - lowest, 4_096, "every level runs at the same stack depth")
    }

    func testQueueGrowingBeyondSixteenItemsKeepsFIFOOrder() {
        // Items are numbered as they are queued; FIFO means they run in number
        // order. Items queue more items while the queue is draining, in bursts
        // of 40, so the queue empties, refills and holds far more than 16.
        var nextNumber = 0
        var ran: [Int] = []
        func enqueue(children: Int) {
            let number = nextNumber
            nextNumber += 1
            _ = scheduler.schedule(number) { number in
                ran.append(number)
                if nextNumber < 500 {
                    for _ in 0..<children {
                        enqueue(children: number.isMultiple(of: 7) ? 40 : 1)
                    }
                }
                return Disposables.create()
            }
        }
        _ = scheduler.schedule(()) { _ in
            for _ in 0..<10 {
                enqueue(children: 2)
            }
            return Disposables.create()
        }
        XCTAssertGreaterThanOrEqual(ran.count, 500)
        XCTAssertEqual(ran, Array(0..<ran.count))
    }

    func testEachThreadHasItsOwnQueue() {
        final class ThreadRun: @unchecked Sendable {
            let inside = DispatchSemaphore(value: 0)
            let finished = DispatchSemaphore(value: 0)
            var requiredBeforeScheduling = false
            var log: [String] = []
            var nestedRanOnThisThread = false
        }
        let first = ThreadRun()
        let second = ThreadRun()

        func start(_ run: ThreadRun, other: ThreadRun, name: String) {
            let thread = Thread {
                let scheduler = CurrentThreadScheduler.instance
                run.requiredBeforeScheduling = CurrentThreadScheduler.isScheduleRequired
                _ = scheduler.schedule(()) { _ in
                    run.log.append("\(name) outer")
                    run.inside.signal()
                    // Both threads are now inside an action at the same time.
                    other.inside.wait()
                    other.inside.signal()
                    let thisThread = Thread.current
                    _ = scheduler.schedule(()) { _ in
                        run.nestedRanOnThisThread = Thread.current == thisThread
                        run.log.append("\(name) nested")
                        return Disposables.create()
                    }
                    run.log.append("\(name) outer ends")
                    return Disposables.create()
                }
                run.finished.signal()
            }
            thread.start()
        }
        start(first, other: second, name: "A")
        start(second, other: first, name: "B")
        XCTAssertEqual(first.finished.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(second.finished.wait(timeout: .now() + 10), .success)

        for (run, name) in [(first, "A"), (second, "B")] {
            XCTAssertTrue(run.requiredBeforeScheduling)
            XCTAssertEqual(run.log, ["\(name) outer", "\(name) outer ends", "\(name) nested"])
            XCTAssertTrue(run.nestedRanOnThisThread)
        }
    }

    func testTrampolineIsFreedWhenItsThreadExits() throws {
        final class Probe: @unchecked Sendable {
            weak var trampoline: Trampoline?
        }
        let probe = Probe()
        let context = Unmanaged.passRetained(probe).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(&thread, nil, { context in
            #if canImport(Darwin)
            let probe = Unmanaged<Probe>.fromOpaque(context).takeRetainedValue()
            #else
            let probe = Unmanaged<Probe>.fromOpaque(context!).takeRetainedValue()
            #endif
            _ = CurrentThreadScheduler.instance.schedule(()) { _ in Disposables.create() }
            probe.trampoline = Trampoline.existing
            return nil
        }, context)
        XCTAssertEqual(status, 0)
        pthread_join(thread, nil)
        XCTAssertNil(probe.trampoline, "the thread's queue is freed when the thread exits")
    }
}

/// A chain of queued schedules: each level schedules the next.
private final class ScheduleChain {
    var remaining: Int

    init(_ remaining: Int) {
        self.remaining = remaining
    }
}

/// One level of a `ScheduleChain`. A global function: a closure made from it
/// has no context (one made from a class's static method captures the metatype).
private func scheduleChainLevel(_ chain: ScheduleChain) -> Disposable {
    chain.remaining -= 1
    if chain.remaining > 0 {
        _ = CurrentThreadScheduler.instance.schedule(chain, action: scheduleChainLevel)
    }
    return Disposables.create()
}

/// A chain whose state is another type than `ScheduleChain`.
private final class OtherScheduleChain {
    var remaining: Int

    init(_ remaining: Int) {
        self.remaining = remaining
    }
}

private func otherScheduleChainLevel(_ chain: OtherScheduleChain) -> Disposable {
    chain.remaining -= 1
    if chain.remaining > 0 {
        _ = CurrentThreadScheduler.instance.schedule(chain, action: otherScheduleChainLevel)
    }
    return Disposables.create()
}
