import Dispatch
import Foundation
import Schedulers
import SchedulersTesting
import Synchronization
import Testing

/// The guarantees every scheduler of the library keeps, one test per
/// guarantee, each run on every scheduler (`ConformanceKind`): current-thread,
/// serial and concurrent dispatch queue, operation queue, main, `TestScheduler`
/// and historical. What only some schedulers do stays in their own tests
/// (`DispatchSchedulerGuaranteeTests` for the dispatch-backed ones).
@Suite struct SchedulerConformanceTests {
    /// Guarantee 5, before: an action disposed before it starts never runs,
    /// reads as disposed, and the scheduler goes on with later work.
    @Test(.tags(.guarantee5), arguments: ConformanceKind.allCases)
    func disposingBeforeStartSkipsTheAction(kind: ConformanceKind) {
        let target = kind.make()
        let log = ConformanceLog()
        target.whileHeld {
            let skipped = target.scheduler.schedule(()) { _ in
                log.append("skipped")
                return Disposables.create()
            }
            _ = target.scheduler.schedule(()) { _ in
                log.append("later")
                return Disposables.create()
            }
            #expect((skipped as? Cancelable)?.isDisposed == false)
            skipped.dispose()
            #expect((skipped as? Cancelable)?.isDisposed == true)
        }
        #expect(target.runUntilIdle { log.entries == ["later"] }, "got \(log.entries)")
        #expect(log.entries == ["later"])
    }

    /// Guarantee 5, during: an action disposed while it runs finishes, is
    /// not run again, and what it returns is disposed once, after it returns.
    @Test(.tags(.guarantee5), arguments: ConformanceKind.allCases)
    func disposingWhileRunningFinishesAndDisposesTheResultOnce(kind: ConformanceKind) {
        let target = kind.make()
        let log = ConformanceLog()
        let result = DisposalCounter()
        let handle = ConformanceHandle()
        target.whileHeld {
            handle.disposable = target.scheduler.schedule(()) { _ in
                handle.disposable?.dispose()
                log.append("disposed before returning: \(result.disposeCount)")
                return result
            }
        }
        #expect(target.runUntilIdle { result.disposeCount == 1 }, "disposed as soon as the action returned")
        #expect(log.entries == ["disposed before returning: 0"], "the action finished, once")
        handle.disposable?.dispose()
        #expect(result.disposeCount == 1, "disposing again disposes nothing more")
    }

    /// Guarantee 5, after: disposing an action that finished disposes what it
    /// returned, exactly once however often it is disposed.
    @Test(.tags(.guarantee5), arguments: ConformanceKind.allCases)
    func disposingAfterTheRunDisposesTheResultOnce(kind: ConformanceKind) {
        let target = kind.make()
        let log = ConformanceLog()
        let result = DisposalCounter()
        var disposable: Disposable?
        target.whileHeld {
            disposable = target.scheduler.schedule(()) { _ in
                log.append("ran")
                return result
            }
        }
        #expect(target.runUntilIdle { log.entries == ["ran"] })
        #expect(result.disposeCount == 0, "nothing disposes the result before the disposable is")
        disposable?.dispose()
        disposable?.dispose()
        #expect(result.disposeCount == 1)
    }

    /// Guarantee 5 for relative work, with guarantee 8: work disposed before
    /// its due time never runs and its state is released at once, not at
    /// the due time.
    @Test(.tags(.guarantee5, .guarantee8), arguments: ConformanceKind.timed)
    func disposingRelativeWorkBeforeItIsDueNeverRunsAndReleasesItsState(kind: ConformanceKind) {
        let target = kind.make()
        let log = ConformanceLog()
        weak var weakState: LifetimeToken?
        var disposable: Disposable?
        do {
            let state = LifetimeToken()
            weakState = state
            disposable = target.timed.scheduleRelative(state, dueTime: .seconds(30)) { _ in
                log.append("ran")
                return Disposables.create()
            }
        }
        #expect(weakState != nil, "pending work keeps its state")
        disposable?.dispose()
        #expect(dispatchEventually { weakState == nil }, "disposing releases the state at once")
        #expect(target.runUntilIdle())
        #expect(log.entries == [])
    }

    /// Guarantee 9: a negative due time means "due now" (on virtual time: at
    /// the current clock, which does not move), and `.never` never runs.
    @Test(
        .tags(.guarantee9),
        arguments: ConformanceKind.timed, [RxTimeInterval.seconds(-10), .seconds(-1), .milliseconds(-5)]
    )
    func negativeDueTimeIsDueNowAndNeverDueTimeNeverRuns(kind: ConformanceKind, negative: RxTimeInterval) {
        let target = kind.make()
        let log = ConformanceLog()
        let before = target.timed.now
        let ranAt = Mutex<Date?>(nil)
        var never: Disposable?
        target.whileHeld {
            never = target.timed.scheduleRelative((), dueTime: .never) { _ in
                log.append("never")
                return Disposables.create()
            }
            _ = target.timed.scheduleRelative((), dueTime: negative) { _ in
                ranAt.withLock { $0 = target.timed.now }
                log.append("negative")
                return Disposables.create()
            }
            _ = target.timed.scheduleRelative((), dueTime: .milliseconds(10)) { _ in
                log.append("later")
                return Disposables.create()
            }
        }
        #expect(target.runUntilIdle { log.entries.count == 2 })
        #expect(log.entries == ["negative", "later"])
        if target.isVirtual {
            #expect(ranAt.withLock { $0 } == before, "due at the current clock, which did not move")
        }
        never?.dispose()
    }
}

/// What the actions of one test recorded, in order, from any thread.
final class ConformanceLog: Sendable {
    private let storage = Mutex<[String]>([])

    func append(_ entry: String) {
        storage.withLock { $0.append(entry) }
    }

    var entries: [String] {
        storage.withLock { $0 }
    }
}

/// The disposable of a scheduled action, which the action itself reads.
final class ConformanceHandle: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Disposable?

    var disposable: Disposable? {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}
