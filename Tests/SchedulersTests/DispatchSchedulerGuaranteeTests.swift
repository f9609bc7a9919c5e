import Dispatch
import Foundation
import Schedulers
import Testing

/// The guarantees of the dispatch-backed schedulers that need a real queue
/// (held, suspended, run concurrently), one test per guarantee, run on the
/// serial dispatch queue, concurrent dispatch queue and operation queue
/// schedulers (`SchedulerKind`). What every scheduler shares is in
/// `SchedulerConformanceTests`; what only one of them does stays in its own
/// test class.
@Suite struct DispatchSchedulerGuaranteeTests {
    /// Guarantee 5 across threads: an action disposed from another thread
    /// while it runs finishes, is not run again, and what it returns is
    /// disposed once, after it returns. (`SchedulerConformanceTests` checks
    /// the same on every scheduler with the action disposing itself.)
    @Test(.tags(.guarantee5), arguments: SchedulerKind.allCases)
    func disposingFromAnotherThreadWhileRunningFinishesAndDisposesTheResultOnce(kind: SchedulerKind) {
        let target = kind.make(label: "guarantee.dispose-during.\(kind)")
        let started = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        let result = DisposalCounter()
        let probe = DispatchProbe()
        let disposable = target.scheduler.schedule(()) { _ in
            probe.enter()
            started.signal()
            proceed.wait()
            probe.record("finished")
            return result
        }
        #expect(started.wait(timeout: .now() + 10) == .success)
        disposable.dispose()
        #expect(result.disposeCount == 0, "the result cannot be disposed before the action returns it")
        proceed.signal()
        #expect(target.waitUntilIdle())
        #expect(result.disposeCount == 1, "disposed as soon as the action returned")
        #expect(probe.events == ["finished"])
        disposable.dispose()
        #expect(result.disposeCount == 1)
        #expect(probe.count == 1, "not run again")
    }

    /// Relative work runs on the scheduler's queue.
    @Test(arguments: SchedulerKind.allCases)
    func scheduleRelativeRunsOnTheSchedulersQueue(kind: SchedulerKind) {
        let target = kind.make(label: "guarantee.relative.\(kind)")
        let probe = DispatchProbe()
        let ran = DispatchSemaphore(value: 0)
        _ = target.scheduler.scheduleRelative((), dueTime: .milliseconds(3)) { _ in
            probe.record("on the queue: \(target.isCurrent)")
            ran.signal()
            return Disposables.create()
        }
        #expect(ran.wait(timeout: .now() + 10) == .success)
        #expect(probe.events == ["on the queue: true"])
    }

    /// Guarantee 9: a suspended queue holds the scheduler's work until it is
    /// resumed, and work disposed meanwhile never runs.
    @Test(.tags(.guarantee9), arguments: SchedulerKind.allCases)
    func suspendedQueueHoldsWorkUntilResumedAndDisposedWorkNeverRuns(kind: SchedulerKind) {
        let target = kind.make(label: "guarantee.suspended.\(kind)")
        let probe = DispatchProbe()
        target.hold()
        let dropped = target.scheduler.schedule(()) { _ in
            probe.record("dropped")
            return Disposables.create()
        }
        let kept = DispatchSemaphore(value: 0)
        _ = target.scheduler.schedule(()) { _ in
            probe.record("kept")
            kept.signal()
            return Disposables.create()
        }
        dropped.dispose()
        usleep(5_000)
        #expect(probe.events == [], "nothing runs on a suspended queue")
        target.release()
        #expect(kept.wait(timeout: .now() + 10) == .success)
        #expect(target.waitUntilIdle())
        #expect(probe.events == ["kept"])
    }

    /// Guarantee 6 where the queue could run ticks at once: a tick longer than
    /// the period never overlaps the next; the fires it outlasts are merged.
    @Test(.tags(.guarantee6), arguments: [SchedulerKind.concurrentDispatchQueue, .operationQueue])
    func periodicTicksNeverOverlapOnAQueueThatRunsWorkConcurrently(kind: SchedulerKind) {
        let target = kind.make(label: "guarantee.periodic-overlap.\(kind)")
        let probe = DispatchProbe()
        let disposable = target.scheduler.schedulePeriodic((), startAfter: .nanoseconds(0), period: .microseconds(500)) { _ in
            probe.enter()
            usleep(2_000)
            probe.leave()
            return ()
        }
        #expect(dispatchEventually { probe.count >= 6 })
        disposable.dispose()
        #expect(target.waitUntilIdle())
        #expect(probe.maxRunning == 1)
        let skipped = (disposable as? PeriodicDisposable)?.skippedTicks ?? 0
        #expect(skipped > 0, "fires that came due during a 2 ms tick were merged")
    }

    /// A zero period is accepted, as RxSwift accepts it: ticks come back to
    /// back, in order (each gets the state the previous one returned), never
    /// overlap, count nothing as skipped, and stop at `dispose()`.
    @Test(.tags(.guarantee9), arguments: SchedulerKind.allCases)
    func zeroPeriodTicksBackToBack(kind: SchedulerKind) {
        let target = kind.make(label: "guarantee.zero-period.\(kind)")
        let probe = DispatchProbe()
        let periodic = target.scheduler.schedulePeriodic(0, startAfter: .seconds(0), period: .seconds(0)) { state in
            probe.enter()
            probe.record("\(state)")
            probe.leave()
            return state + 1
        }
        #expect(dispatchEventually { probe.count >= 20 }, "zero-period ticks did not come")
        periodic.dispose()
        // A tick that passed its start check before dispose() returned may
        // still enter afterwards; ticks never overlap, so at most one can.
        let atDispose = probe.count
        #expect(target.waitUntilIdle())
        usleep(10_000)
        let states = probe.events
        #expect(states == (0..<states.count).map { "\($0)" }, "each tick gets the state the previous one returned")
        #expect(probe.maxRunning == 1)
        #expect((periodic as? PeriodicDisposable)?.skippedTicks == 0)
        #expect(states.count <= atDispose + 1, "ticks kept coming after dispose() returned")
    }
}
