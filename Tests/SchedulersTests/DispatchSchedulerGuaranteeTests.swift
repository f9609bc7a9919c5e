import Dispatch
import Foundation
import Schedulers
import Testing

/// The guarantees every dispatch-backed scheduler keeps, one test per
/// guarantee, run on the serial dispatch queue, concurrent dispatch queue
/// and operation queue schedulers (`SchedulerKind`). What only one of them
/// does stays in its own test class.
@Suite struct DispatchSchedulerGuaranteeTests {
    /// Guarantee 5: an action disposed before it starts never runs; the queue goes on with later work.
    @Test(arguments: SchedulerKind.allCases)
    func disposingBeforeStartSkipsTheAction(kind: SchedulerKind) {
        let target = kind.make(label: "guarantee.dispose-before.\(kind)")
        let probe = DispatchProbe()
        target.hold()
        let skipped = target.scheduler.schedule(()) { _ in
            probe.record("skipped ran")
            return Disposables.create()
        }
        skipped.dispose()
        #expect((skipped as? Cancelable)?.isDisposed == true)
        let later = DispatchSemaphore(value: 0)
        _ = target.scheduler.schedule(()) { _ in
            probe.record("later")
            later.signal()
            return Disposables.create()
        }
        target.release()
        #expect(later.wait(timeout: .now() + 10) == .success, "later work did not run")
        #expect(target.waitUntilIdle())
        #expect(probe.events == ["later"])
    }

    /// Guarantee 5: an action disposed while it runs finishes, is not run
    /// again, and what it returns is disposed once, after it returns.
    @Test(arguments: SchedulerKind.allCases)
    func disposingWhileRunningFinishesAndDisposesTheResultOnce(kind: SchedulerKind) {
        let target = kind.make(label: "guarantee.dispose-during.\(kind)")
        let started = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        let result = DispatchCountingDisposable()
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

    /// A negative due time is due now; `.never` has not run by the time a
    /// later action has (it never will).
    @Test(arguments: SchedulerKind.allCases, [RxTimeInterval.seconds(-10), .seconds(-1), .milliseconds(-5)])
    func negativeDueTimeIsDueNowAndNeverDueTimeNeverRuns(kind: SchedulerKind, negative: RxTimeInterval) {
        let target = kind.make(label: "guarantee.negative.\(kind)")
        let probe = DispatchProbe()
        let never = target.scheduler.scheduleRelative((), dueTime: .never) { _ in
            probe.record("never")
            return Disposables.create()
        }
        let ran = DispatchSemaphore(value: 0)
        _ = target.scheduler.scheduleRelative((), dueTime: negative) { _ in
            probe.record("negative")
            ran.signal()
            return Disposables.create()
        }
        #expect(ran.wait(timeout: .now() + 10) == .success, "the negative due time did not run")
        let later = DispatchSemaphore(value: 0)
        _ = target.scheduler.scheduleRelative((), dueTime: .milliseconds(10)) { _ in
            probe.record("later")
            later.signal()
            return Disposables.create()
        }
        #expect(later.wait(timeout: .now() + 10) == .success)
        #expect(probe.events == ["negative", "later"])
        never.dispose()
    }

    /// Guarantees 5 and 8: relative work disposed before its due time never
    /// runs, and its state is released at once, not at the due time.
    @Test(arguments: SchedulerKind.allCases)
    func disposingRelativeBeforeDueNeverRunsAndReleasesState(kind: SchedulerKind) {
        let target = kind.make(label: "guarantee.relative-dispose.\(kind)")
        let probe = DispatchProbe()
        weak var weakState: DispatchTracked?
        var disposable: Disposable?
        do {
            let state = DispatchTracked(7)
            weakState = state
            disposable = target.scheduler.scheduleRelative(state, dueTime: .seconds(30)) { state in
                probe.record("ran \(state.value)")
                return Disposables.create()
            }
        }
        #expect(weakState != nil)
        disposable?.dispose()
        #expect(dispatchEventually { weakState == nil }, "disposing releases the state at once, not at the due time")
        #expect(probe.events == [])
    }
}
