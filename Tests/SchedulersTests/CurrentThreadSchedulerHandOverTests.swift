import CAllocationCounter
import Foundation
import XCTest

@testable import Schedulers

/// The hand-over: a `schedule` made inside a running trampoline action with
/// that action's own state or action (a chain) takes them over from the run
/// instead of copying them. The entry is left without them until the running
/// action returns; every guarantee must hold as if they had been copied:
/// FIFO order, skipping when disposed (guarantee 5), disposing what the
/// action returned when disposed after the run, and nothing kept after the
/// last run (guarantee 8).
final class CurrentThreadSchedulerHandOverTests: XCTestCase {
    private let scheduler = CurrentThreadScheduler.instance

    func testScheduleOfTheRunningStateAndActionTakesThemOver() {
        let chain = HandOverChain(levels: 3)
        var takes: [(state: Bool, action: Bool)] = []
        chain.onLevel = { _, ticket in
            // The entry just queued is the taker, with what it took.
            guard let ticket, let trampoline = Trampoline.existing else { return }
            let item = (ticket as? TrampolineTicket)?.item
            XCTAssertNotNil(item)
            let isTaker = trampoline.taker?.toOpaque() == item.map { Unmanaged.passUnretained($0).toOpaque() }
            takes.append((isTaker && trampoline.takesState, isTaker && trampoline.takesAction))
        }
        chain.start(on: scheduler)
        XCTAssertEqual(chain.ran, [1, 2, 3])
        // Level 1 runs at once, not as a queued entry: nothing to hand over.
        // Level 2 runs as an entry, and the entry for level 3 takes over both.
        XCTAssertEqual(takes.map(\.state), [false, true])
        #if !DEBUG
        // Unoptimised, passing the stored closure wraps it in a new thunk on
        // every call: there is no same action to take over.
        XCTAssertEqual(takes.map(\.action), [false, true])
        #endif
        XCTAssertNil(Trampoline.existing?.taker, "the run moved them into the taker")
        XCTAssertNil(Trampoline.existing?.running)
    }

    func testStateAndCapturedObjectsOfAHandedOverChainAreFreedAfterTheLastRunGuarantee8() {
        weak var weakChain: HandOverChain?
        weak var weakCaptured: LifetimeToken?
        do {
            let chain = HandOverChain(levels: 1_000)
            let captured = LifetimeToken()
            chain.captured = captured
            weakChain = chain
            weakCaptured = captured
            chain.start(on: scheduler)
            XCTAssertEqual(chain.ran.count, 1_000)
            XCTAssertEqual(chain.ran, Array(1...1_000))
        }
        XCTAssertNil(weakChain, "the state the entries took over is released after the last run")
        XCTAssertNil(weakCaptured, "so is what the action captured")
    }

    func testEntriesQueuedAfterATakerStillRunInFIFOOrder() {
        // Level 2 queues level 3 (the taker, run in place as the next entry),
        // then another entry; level 3's own taker, level 4, comes after that
        // entry, so it must wait for it.
        let chain = HandOverChain(levels: 5)
        var log: [String] = []
        chain.onLevel = { level, _ in
            log.append("level \(level)")
            if level == 2 {
                _ = CurrentThreadScheduler.instance.schedule("other") { name in
                    log.append(name)
                    return Disposables.create()
                }
            }
        }
        chain.start(on: scheduler)
        XCTAssertEqual(log, ["level 1", "level 2", "level 3", "other", "level 4", "level 5"])
        XCTAssertEqual(chain.ran, [1, 2, 3, 4, 5])
    }

    func testTakerDisposedBeforeItRunsIsSkippedAndReleasesWhatItTookOverGuarantee5() {
        weak var weakChain: HandOverChain?
        do {
            let chain = HandOverChain(levels: 5)
            weakChain = chain
            chain.onLevel = { level, ticket in
                if level == 2 {
                    ticket?.dispose()
                }
            }
            chain.start(on: scheduler)
            XCTAssertEqual(chain.ran, [1, 2], "level 3 was disposed before it started")
        }
        XCTAssertNil(weakChain, "the skipped entry released the state it took over")
    }

    func testTakerDisposedFromAnotherThreadBeforeItRunsIsSkipped() {
        let chain = HandOverChain(levels: 5)
        chain.onLevel = { level, ticket in
            guard level == 2, let ticket else { return }
            disposeOnAnotherThreadAndWait(ticket)
        }
        chain.start(on: scheduler)
        XCTAssertEqual(chain.ran, [1, 2])
    }

    func testHeldTicketOfATakerDisposesWhatItsActionReturnedWhenDisposedAfterTheRun() {
        let chain = HandOverChain(levels: 3)
        var held: Disposable?
        chain.onLevel = { level, ticket in
            if level == 2 {
                held = ticket
            }
        }
        chain.start(on: scheduler)
        XCTAssertEqual(chain.ran, [1, 2, 3])
        let returnedByLevel3 = chain.returned[2]
        XCTAssertEqual(returnedByLevel3.disposeCount, 0)
        held?.dispose()
        held?.dispose()
        XCTAssertEqual(returnedByLevel3.disposeCount, 1)
        XCTAssertEqual(chain.returned[1].disposeCount, 0, "another level's result is not touched")
    }

    func testSecondScheduleOfTheSameStateInOneRunCopiesItAndBothRunInOrder() {
        weak var weakState: LifetimeToken?
        var log: [String] = []
        do {
            let state = LifetimeToken()
            weakState = state
            let step: (LifetimeToken) -> Disposable = { _ in
                log.append("step")
                return Disposables.create()
            }
            _ = scheduler.schedule(()) { _ in
                _ = self.scheduler.schedule(state) { state in
                    log.append("first")
                    // Runs as an entry: the first schedule takes over, the second copies.
                    _ = self.scheduler.schedule(state, action: step)
                    XCTAssertNotNil(Trampoline.existing?.taker)
                    XCTAssertEqual(Trampoline.existing?.takesState, true)
                    _ = self.scheduler.schedule(state, action: step)
                    return Disposables.create()
                }
                return Disposables.create()
            }
        }
        XCTAssertEqual(log, ["first", "step", "step"])
        XCTAssertNil(weakState)
    }

    func testEqualBitsOfAnotherStateTypeAreNotTakenOver() {
        weak var weakState: LifetimeToken?
        var ran: [String] = []
        do {
            let state = LifetimeToken()
            weakState = state
            _ = scheduler.schedule(()) { _ in
                _ = self.scheduler.schedule(state) { state in
                    // The same object, as another type: its entry is of another type.
                    _ = self.scheduler.schedule(state as AnyObject) { object in
                        ran.append("as AnyObject: \(object === state)")
                        return Disposables.create()
                    }
                    XCTAssertNil(Trampoline.existing?.taker)
                    ran.append("as token")
                    return Disposables.create()
                }
                return Disposables.create()
            }
        }
        XCTAssertEqual(ran, ["as token", "as AnyObject: true"])
        XCTAssertNil(weakState)
    }

    func testAnotherStateOfTheSameTypeIsCopiedAndBothAreFreed() {
        weak var weakFirst: LifetimeToken?
        weak var weakSecond: LifetimeToken?
        var ran: [ObjectIdentifier] = []
        do {
            let first = LifetimeToken()
            let second = LifetimeToken()
            weakFirst = first
            weakSecond = second
            let step: (LifetimeToken) -> Disposable = { token in
                ran.append(ObjectIdentifier(token))
                if token === first {
                    _ = CurrentThreadScheduler.instance.schedule(second) { token in
                        ran.append(ObjectIdentifier(token))
                        return Disposables.create()
                    }
                    XCTAssertNil(Trampoline.existing?.taker, "another object, another closure: copied")
                }
                return Disposables.create()
            }
            _ = scheduler.schedule(()) { _ in
                _ = self.scheduler.schedule(first, action: step)
                return Disposables.create()
            }
            XCTAssertEqual(ran, [ObjectIdentifier(first), ObjectIdentifier(second)])
        }
        XCTAssertNil(weakFirst)
        XCTAssertNil(weakSecond)
    }

    func testStructStatesOfTwoWordsAndOfMoreAreTakenOverAndFreed() {
        struct TwoWords {
            let token: LifetimeToken
            let level: Int
        }
        struct ThreeReferences {
            let first: LifetimeToken
            let second: LifetimeToken
            let third: LifetimeToken
        }
        weak var weakPairToken: LifetimeToken?
        weak var weakTripleToken: LifetimeToken?
        var tookPair = false
        var tookTriple = false
        do {
            let pair = TwoWords(token: LifetimeToken(), level: 7)
            weakPairToken = pair.token
            let triple = ThreeReferences(first: LifetimeToken(), second: LifetimeToken(), third: LifetimeToken())
            weakTripleToken = triple.third
            var pairLevels = 0
            var tripleLevels = 0
            func pairStep(_ state: TwoWords) -> Disposable {
                pairLevels += 1
                if pairLevels < 3 {
                    _ = CurrentThreadScheduler.instance.schedule(state, action: pairStep)
                    if pairLevels == 2 {
                        tookPair = Trampoline.existing?.taker != nil && Trampoline.existing?.takesState == true
                    }
                }
                return Disposables.create()
            }
            func tripleStep(_ state: ThreeReferences) -> Disposable {
                tripleLevels += 1
                if tripleLevels < 3 {
                    _ = CurrentThreadScheduler.instance.schedule(state, action: tripleStep)
                    if tripleLevels == 2 {
                        tookTriple = Trampoline.existing?.taker != nil && Trampoline.existing?.takesState == true
                    }
                }
                return Disposables.create()
            }
            _ = scheduler.schedule(pair, action: pairStep)
            _ = scheduler.schedule(triple, action: tripleStep)
            XCTAssertEqual(pairLevels, 3)
            XCTAssertEqual(tripleLevels, 3)
        }
        XCTAssertTrue(tookPair, "a two-word state is compared word by word")
        XCTAssertTrue(tookTriple, "a larger state is compared byte by byte")
        XCTAssertNil(weakPairToken)
        XCTAssertNil(weakTripleToken)
    }

    func testHandedOverChainWithACapturingActionAllocatesNothingPerLevel() throws {
        try XCTSkipUnless(allocation_counter_is_active() != 0, "allocation counting is off under sanitizers")
        func allocations(forLevels levels: Int) -> UInt64 {
            let chain = HandOverChain(levels: levels, recording: false)
            chain.captured = LifetimeToken()
            let before = allocation_counter_read_thread()
            chain.start(on: scheduler)
            return allocation_counter_read_thread() - before
        }
        assertChainAllocatesNothingPerLevel(allocations(forLevels:))
    }
}

/// A chain of nested schedules in the form the hand-over serves: every level
/// schedules the next with the same state (the chain itself) and the same
/// action (one closure made once, capturing the chain weakly and `captured`).
private final class HandOverChain {
    let levels: Int
    let recording: Bool
    /// Levels run, in order.
    var ran: [Int] = []
    /// What each level returned, in order.
    var returned: [DisposalCounter] = []
    /// An object the action captures, to check that it is freed.
    var captured: LifetimeToken?
    /// Called in each level after it scheduled the next, with the level and the next level's ticket.
    var onLevel: ((Int, Disposable?) -> Void)?
    private var count = 0
    private var step: ((HandOverChain) -> Disposable)?

    init(levels: Int, recording: Bool = true) {
        self.levels = levels
        self.recording = recording
    }

    func start(on scheduler: CurrentThreadScheduler) {
        let captured = self.captured
        step = { chain in
            withExtendedLifetime(captured) {}
            chain.count += 1
            let level = chain.count
            var ticket: Disposable?
            if level < chain.levels, let step = chain.step {
                ticket = CurrentThreadScheduler.instance.schedule(chain, action: step)
            }
            chain.onLevel?(level, ticket)
            if chain.recording {
                chain.ran.append(level)
                let result = DisposalCounter()
                chain.returned.append(result)
                return result
            }
            return Disposables.create()
        }
        if let step {
            _ = scheduler.schedule(self, action: step)
        }
        // Breaks the cycle chain → step → captured (the step holds no chain).
        step = nil
        onLevel = nil
    }
}
