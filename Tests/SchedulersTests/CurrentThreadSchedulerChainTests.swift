import CAllocationCounter
import Foundation
import XCTest

@testable import Schedulers

/// Chains: a `schedule` made inside a running trampoline action with that
/// action's own state or action, the shape recursion through `schedule`
/// takes. Entries are reused from level to level; every guarantee must hold
/// for them: FIFO order, skipping when disposed (guarantee 5), disposing
/// what the action returned when disposed after the run, and nothing kept
/// after the last run (guarantee 8).
final class CurrentThreadSchedulerChainTests: XCTestCase {
    private let scheduler = CurrentThreadScheduler.instance

    func testGuarantee8_StateAndCapturedObjectsOfAChainAreFreedAfterTheLastRun() {
        weak var weakChain: NestedChain?
        weak var weakCaptured: LifetimeToken?
        do {
            let chain = NestedChain(levels: 1_000)
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

    func testEntriesQueuedBetweenTheLevelsOfAChainRunInFIFOOrder() {
        // Level 2 queues level 3, then another entry; level 3 queues level 4
        // after that entry, so level 4 must wait for it.
        let chain = NestedChain(levels: 5)
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

    func testGuarantee5_ChainLevelDisposedBeforeItRunsIsSkippedAndReleasesItsState() {
        weak var weakChain: NestedChain?
        do {
            let chain = NestedChain(levels: 5)
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

    func testChainLevelDisposedFromAnotherThreadBeforeItRunsIsSkipped() {
        let chain = NestedChain(levels: 5)
        chain.onLevel = { level, ticket in
            guard level == 2, let ticket else { return }
            disposeOnAnotherThreadAndWait(ticket)
        }
        chain.start(on: scheduler)
        XCTAssertEqual(chain.ran, [1, 2])
    }

    func testHeldTicketOfAChainLevelDisposesWhatItsActionReturnedWhenDisposedAfterTheRun() {
        let chain = NestedChain(levels: 3)
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

    func testTwoSchedulesOfTheSameStateInOneRunBothRunInOrder() {
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
                    _ = self.scheduler.schedule(state, action: step)
                    _ = self.scheduler.schedule(state, action: step)
                    return Disposables.create()
                }
                return Disposables.create()
            }
        }
        XCTAssertEqual(log, ["first", "step", "step"])
        XCTAssertNil(weakState)
    }

    func testTheSameObjectAsAnotherStateTypeRunsAsThatType() {
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
                    ran.append("as token")
                    return Disposables.create()
                }
                return Disposables.create()
            }
        }
        XCTAssertEqual(ran, ["as token", "as AnyObject: true"])
        XCTAssertNil(weakState)
    }

    func testAnotherStateOfTheSameTypeRunsAndBothAreFreed() {
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

    func testChainsOfStructStatesOfTwoWordsAndOfMoreRunAndAreFreed() {
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
                }
                return Disposables.create()
            }
            func tripleStep(_ state: ThreeReferences) -> Disposable {
                tripleLevels += 1
                if tripleLevels < 3 {
                    _ = CurrentThreadScheduler.instance.schedule(state, action: tripleStep)
                }
                return Disposables.create()
            }
            _ = scheduler.schedule(pair, action: pairStep)
            _ = scheduler.schedule(triple, action: tripleStep)
            XCTAssertEqual(pairLevels, 3)
            XCTAssertEqual(tripleLevels, 3)
        }
        XCTAssertNil(weakPairToken)
        XCTAssertNil(weakTripleToken)
    }

    func testChainWithACapturingActionAllocatesNothingPerLevel() throws {
        try XCTSkipUnless(allocation_counter_is_active() != 0, "allocation counting is off under sanitizers")
        func allocations(forLevels levels: Int) -> UInt64 {
            let chain = NestedChain(levels: levels, recording: false)
            chain.captured = LifetimeToken()
            let before = allocation_counter_read_thread()
            chain.start(on: scheduler)
            return allocation_counter_read_thread() - before
        }
        assertChainAllocatesNothingPerLevel(allocations(forLevels:))
    }
}

/// A chain of nested schedules: every level
/// schedules the next with the same state (the chain itself) and the same
/// action (one closure made once, capturing the chain weakly and `captured`).
private final class NestedChain {
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
    private var step: ((NestedChain) -> Disposable)?

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
