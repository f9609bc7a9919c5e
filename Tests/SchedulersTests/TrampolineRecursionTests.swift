import Dispatch
import Foundation
import Schedulers
import Synchronization
import XCTest

/// `scheduleRecursive` on `CurrentThreadScheduler` counts its own references
/// by hand (the queue's reference is handed from step to step) and runs its
/// next step in place when that step is the next entry of the queue. These
/// tests check what that must not change: FIFO order with other queued work
/// (guarantee of the trampoline), and that the recursion object and what it
/// holds are freed on every way a recursion can end (guarantee 8).
final class TrampolineRecursionTests: XCTestCase {
    private let scheduler = CurrentThreadScheduler.instance

    // MARK: - Order

    func testWorkQueuedBeforeRecursingRunsBeforeTheNextStep() {
        var log: [String] = []
        _ = scheduler.scheduleRecursive(0) { level, recurse in
            log.append("step \(level)")
            guard level < 2 else { return }
            _ = self.scheduler.schedule(level) { level in
                log.append("item \(level)")
                return Disposables.create()
            }
            recurse(level + 1)
        }
        XCTAssertEqual(log, ["step 0", "item 0", "step 1", "item 1", "step 2"])
    }

    func testWorkQueuedAfterRecursingRunsAfterTheNextStep() {
        var log: [String] = []
        _ = scheduler.scheduleRecursive(0) { level, recurse in
            log.append("step \(level)")
            guard level < 2 else { return }
            recurse(level + 1)
            _ = self.scheduler.schedule(level) { level in
                log.append("item \(level)")
                return Disposables.create()
            }
        }
        // step 0 queues [step 1, item 0]; step 1 is next, runs in place and
        // queues [item 0, step 2, item 1].
        XCTAssertEqual(log, ["step 0", "step 1", "item 0", "step 2", "item 1"])
    }

    func testTwoRecursionsOnOneTrampolineAlternateTheirSteps() {
        var log: [String] = []
        _ = scheduler.schedule(()) { _ in
            for name in ["a", "b"] {
                _ = self.scheduler.scheduleRecursive(0) { level, recurse in
                    log.append("\(name)\(level)")
                    if level < 2 {
                        recurse(level + 1)
                    }
                }
            }
            return Disposables.create()
        }
        XCTAssertEqual(log, ["a0", "b0", "a1", "b1", "a2", "b2"])
    }

    // MARK: - Lifetime

    func testRecursionStartedOnARunningTrampolineIsFreedWhenItEnds() {
        weak var weakRecursion: AnyObject?
        weak var weakCaptured: LifetimeToken?
        _ = scheduler.schedule(()) { _ in
            let captured = LifetimeToken()
            weakCaptured = captured
            let disposable = self.scheduler.scheduleRecursive(0) { level, recurse in
                _ = captured
                if level < 3 {
                    recurse(level + 1)
                }
            }
            weakRecursion = disposable as AnyObject
            return Disposables.create()
        }
        XCTAssertNil(weakRecursion)
        XCTAssertNil(weakCaptured)
    }

    func testRecursionThatFansOutIsFreedWhenAllItsStepsEnd() {
        weak var weakRecursion: AnyObject?
        weak var weakCaptured: LifetimeToken?
        var steps = 0
        do {
            let captured = LifetimeToken()
            weakCaptured = captured
            let disposable = scheduler.scheduleRecursive(0) { level, recurse in
                _ = captured
                steps += 1
                if level < 3 {
                    recurse(level + 1)
                    recurse(level + 1)
                }
            }
            weakRecursion = disposable as AnyObject
        }
        XCTAssertEqual(steps, 15, "1 + 2 + 4 + 8 steps")
        XCTAssertNil(weakRecursion)
        XCTAssertNil(weakCaptured)
    }

    func testRecursionDisposedInsideItsStepIsFreedAfterTheStep() {
        weak var weakRecursion: AnyObject?
        weak var weakCaptured: LifetimeToken?
        weak var weakState: LifetimeToken?
        var steps = 0
        var handle: Disposable?
        // Started inside an action, so the handle is set before the first step.
        _ = scheduler.schedule(()) { _ in
            let captured = LifetimeToken()
            weakCaptured = captured
            // An object state passed on as it is: each step hands it over
            // (see "A chain that passes its own state on" below).
            let state = LifetimeToken()
            weakState = state
            handle = self.scheduler.scheduleRecursive(state) { state, recurse in
                _ = captured
                steps += 1
                recurse(state)
                if steps == 3 {
                    handle?.dispose()
                    handle = nil
                }
            }
            weakRecursion = handle as AnyObject
            return Disposables.create()
        }
        XCTAssertEqual(steps, 3)
        XCTAssertNil(weakRecursion)
        XCTAssertNil(weakCaptured)
        XCTAssertNil(weakState, "the state handed over to the step that never runs is freed")
    }

    func testRecursionDisposedFromAnotherThreadWhileItRunsIsFreedWhenItStops() {
        weak var weakRecursion: AnyObject?
        weak var weakCaptured: LifetimeToken?
        var steps = 0
        var handle: Disposable?
        // Started inside an action, so the handle is set before the first step.
        _ = scheduler.schedule(()) { _ in
            let captured = LifetimeToken()
            weakCaptured = captured
            handle = self.scheduler.scheduleRecursive(0) { level, recurse in
                _ = captured
                steps += 1
                recurse(level + 1)
                if level == 2, let disposable = handle {
                    handle = nil
                    // Disposed by another thread while this step runs: the
                    // step finishes, the queued one is skipped.
                    // (`sync` could run the block on this thread.)
                    let transfer = DisposableHandoff(value: disposable)
                    let done = DispatchSemaphore(value: 0)
                    DispatchQueue.global().async {
                        transfer.value.dispose()
                        done.signal()
                    }
                    XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
                }
            }
            weakRecursion = handle as AnyObject
            return Disposables.create()
        }
        XCTAssertEqual(steps, 3)
        XCTAssertNil(weakCaptured, "the action is released once the running step returns")
        // The dispatch block that disposed may still hold the recursion for a moment.
        let deadline = DispatchTime.now() + 10
        while weakRecursion != nil, DispatchTime.now() < deadline {
            usleep(1_000)
        }
        XCTAssertNil(weakRecursion)
    }

    func testDisposeFromAnotherThreadRacingAChainLetsAtMostTheRunningStepFinish() {
        raceDisposeAgainstChain(rounds: 200, initial: { 0 }) { level in level + 1 }
    }

    func testDisposeFromAnotherThreadRacingAChainThatPassesItsOwnObjectStateOn() {
        // The same race while every step hands its state over to the next
        // (see "A chain that passes its own state on" below): the state is
        // released with the action, whichever step the race stops.
        final class Counter: @unchecked Sendable {
            var steps = 0
        }
        raceDisposeAgainstChain(rounds: 100, initial: { Counter() }) { counter in
            counter.steps += 1
            return counter
        }
    }

    /// Guarantee 5 under a real race: the chain runs on a worker thread
    /// while this thread disposes at a varying moment. Once `dispose()` has
    /// returned, at most one step (one already past its check) may still
    /// begin; then nothing else runs and the action is released, and so is
    /// the state when it is an object. `initial` makes a round's first
    /// state, `next` each step's successor from its own.
    private func raceDisposeAgainstChain<State>(
        rounds: Int, initial: @escaping () -> State, next: @escaping (State) -> State,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        let makeInitial = StateHandoff(value: initial)
        let makeNext = StateHandoff(value: next)
        for round in 0..<rounds {
            let disposeReturned = Atomic<Bool>(false)
            let stepsSeeingDispose = Atomic<Int>(0)
            let shared = RaceShared()
            let started = DispatchSemaphore(value: 0)
            let finished = DispatchSemaphore(value: 0)
            DispatchQueue.global().async {
                _ = CurrentThreadScheduler.instance.schedule(()) { _ in
                    let captured = LifetimeToken()
                    shared.withLock { $0.captured = captured }
                    var steps = 0
                    let first = makeInitial.value()
                    if State.self is AnyClass {
                        shared.withLock { $0.state = first as AnyObject }
                    }
                    let disposable = CurrentThreadScheduler.instance.scheduleRecursive(first) { state, recurse in
                        _ = captured
                        if disposeReturned.load(ordering: .acquiring) {
                            stepsSeeingDispose.add(1, ordering: .relaxed)
                        }
                        steps += 1
                        if steps < 10_000_000 {
                            recurse(makeNext.value(state))
                        }
                    }
                    shared.withLock { $0.disposable = disposable }
                    started.signal()
                    return Disposables.create()
                }
                finished.signal()
            }
            started.wait()
            for _ in 0..<(round * 37 % 2_000) {
                _ = disposeReturned.load(ordering: .relaxed)
            }
            shared.withLock { $0.disposable }?.dispose()
            disposeReturned.store(true, ordering: .releasing)
            XCTAssertEqual(finished.wait(timeout: .now() + 30), .success, "the chain stopped", file: file, line: line)
            XCTAssertLessThanOrEqual(
                stepsSeeingDispose.load(ordering: .relaxed), 1, "round \(round)", file: file, line: line)
            XCTAssertNil(
                shared.withLock { $0.captured }, "round \(round): the action was released", file: file, line: line)
            XCTAssertNil(
                shared.withLock { $0.state }, "round \(round): the state was released", file: file, line: line)
        }
    }

    func testRecursionHeldByItsDisposableKeepsNothingAfterItEnds() {
        weak var weakCaptured: LifetimeToken?
        weak var weakState: LifetimeToken?
        let disposable: Disposable
        do {
            let captured = LifetimeToken()
            let state = LifetimeToken()
            weakCaptured = captured
            weakState = state
            disposable = scheduler.scheduleRecursive(state) { state, recurse in
                _ = captured
                _ = state
            }
        }
        XCTAssertNil(weakCaptured, "the action is released when the recursion ends")
        XCTAssertNil(weakState, "so is the last state")
        XCTAssertFalse((disposable as? Cancelable)?.isDisposed ?? true)
        disposable.dispose()
    }

    // MARK: - A chain that passes its own state on

    // A step that calls `recurse` with bit-for-bit the state it was given
    // hands that state over instead of copying it: `recurse` stores nothing
    // and the step moves its own state on. These tests use object states
    // (the only kind handed over) and check that every object is freed when
    // the recursion ends, that none is freed early, and that counting stays
    // balanced step after step.

    func testChainPassingItsOwnObjectStateKeepsItsCountAndFreesItAtTheEnd() {
        weak var weakState: LifetimeToken?
        var counts: [UInt] = []
        do {
            let state = LifetimeToken()
            weakState = state
            _ = scheduler.scheduleRecursive(state) { state, recurse in
                counts.append(_getRetainCount(state))
                if counts.count < 50 {
                    recurse(state)
                }
            }
        }
        XCTAssertEqual(counts.count, 50)
        // The first step runs before the chain owns the state alone; from
        // the second on, a leak or an extra release would move the count.
        XCTAssertEqual(Set(counts.dropFirst()).count, 1, "counts per step: \(counts)")
        XCTAssertNil(weakState, "the state is freed when the chain ends")
    }

    func testChainAlternatingTwoObjectStatesGivesEachStepItsOwnAndFreesBoth() {
        weak var weakFirst: LifetimeToken?
        weak var weakSecond: LifetimeToken?
        var seen: [ObjectIdentifier] = []
        var expected: [ObjectIdentifier] = []
        do {
            let first = LifetimeToken()
            let second = LifetimeToken()
            weakFirst = first
            weakSecond = second
            expected = (0..<9).map { ObjectIdentifier($0 % 3 == 2 ? second : first) }
            _ = scheduler.scheduleRecursive(first) { state, recurse in
                seen.append(ObjectIdentifier(state))
                guard seen.count < 9 else { return }
                // Two steps with the same object, then one with the other.
                recurse(seen.count % 3 == 2 ? second : first)
            }
        }
        XCTAssertEqual(seen, expected)
        XCTAssertNil(weakFirst)
        XCTAssertNil(weakSecond)
    }

    func testChainFanningOutWithItsOwnObjectStateRunsEveryStepAndFreesIt() {
        weak var weakState: LifetimeToken?
        var steps = 0
        do {
            let state = LifetimeToken()
            weakState = state
            _ = scheduler.scheduleRecursive(state) { state, recurse in
                steps += 1
                if steps < 15 {
                    // The first hands the state over, the second copies it.
                    recurse(state)
                    recurse(state)
                }
            }
        }
        // Steps 1 to 14 queue two each: 1 + 28.
        XCTAssertEqual(steps, 29)
        XCTAssertNil(weakState)
    }

    func testChainWhoseStateIsAnEnumAroundAnObjectEndsOnItsEmptyCase() {
        // One word: the object's reference, or for `.end` a bit pattern that
        // holds no reference (all zeros), which is never handed over.
        enum Link {
            case end
            case next(LifetimeToken)
        }
        weak var weakToken: LifetimeToken?
        var log: [String] = []
        do {
            let token = LifetimeToken()
            weakToken = token
            _ = scheduler.scheduleRecursive(Link.next(token)) { link, recurse in
                switch link {
                case .next(let token):
                    log.append("next")
                    recurse(log.count < 4 ? .next(token) : .end)
                case .end:
                    log.append("end")
                    if log.count < 6 {
                        recurse(.end)
                    }
                }
            }
        }
        XCTAssertEqual(log, ["next", "next", "next", "next", "end", "end"])
        XCTAssertNil(weakToken)
    }

    func testChainWhoseStateIsAStructAroundAnObjectIsHandedOverAndFreed() {
        struct Wrapper {
            let token: LifetimeToken
        }
        weak var weakToken: LifetimeToken?
        var steps = 0
        do {
            let token = LifetimeToken()
            weakToken = token
            _ = scheduler.scheduleRecursive(Wrapper(token: token)) { wrapper, recurse in
                steps += 1
                if steps < 20 {
                    recurse(wrapper)
                }
            }
        }
        XCTAssertEqual(steps, 20)
        XCTAssertNil(weakToken)
    }
}

/// A value handed to the racing test's worker thread, which alone uses it
/// once the test has made it.
private final class StateHandoff<Value>: @unchecked Sendable {
    let value: Value

    init(value: Value) {
        self.value = value
    }
}

/// What the racing test shares between its threads, behind an `NSLock`
/// (ThreadSanitizer sees it; it does not see `Mutex`'s futex path).
private final class RaceShared: @unchecked Sendable {
    struct Value {
        var disposable: Disposable?
        weak var captured: LifetimeToken?
        /// The chain's first state, when it is an object.
        weak var state: AnyObject?
    }

    private let lock = NSLock()
    private var value = Value()

    func withLock<Result>(_ body: (inout Value) -> Result) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}

/// Hands a disposable to another thread in a test.
private struct DisposableHandoff: @unchecked Sendable {
    let value: Disposable
}
