#if SCHEDULERS_MUTANTS
import Foundation

/// Seeded bugs for the stress suite's mutation score (scripts/mutation-score.sh,
/// docs/Stress.md, "Mutation score").
///
/// This file, and every site that reads `Mutant.active`, exists only in a
/// build with `-Xswiftc -DSCHEDULERS_MUTANTS`, which that script alone passes:
/// no package setting, trait or client build defines it, so the library a
/// client builds has no trace of them. In such a build the environment
/// variable `SCHEDULERS_MUTANT` names at most one mutant, read once; unset,
/// the library behaves as the correct one.
///
/// Each case is one realistic bug of its own kind, at one small site, and
/// says which guarantee (Guarantees.md) it breaks. Usable from inlinable
/// code, since some sites are in it (`ScheduledActionPhase`).
@usableFromInline
enum Mutant: String, CaseIterable, Sendable {
    /// Lost FIFO, trampoline: `Trampoline.popFirst` takes the newest entry
    /// of `incoming` before the older ones, so nested actions queued behind
    /// the first run last in, first out. Breaks guarantee 2 (per-thread FIFO).
    case trampolineLIFO = "trampoline-lifo"

    /// Lost FIFO, serial executor: `DispatchJobQueue.enqueue` starts a batch
    /// under the lock but hands its block to the queue after releasing it,
    /// so an action scheduled meanwhile may reach the queue first, and a
    /// job runs after an action scheduled after it. Breaks guarantee 2 on an actor's executor.
    case executorFIFO = "executor-fifo"

    /// A batch joined past an action: `SerialDispatchQueueScheduler` enqueues
    /// its actions without closing its executor's open batch of jobs, so a
    /// job enqueued after an action may join a batch whose block the queue
    /// holds ahead of that action, and run before it. Breaks guarantee 2 on
    /// an actor's executor.
    case executorBatchPastAction = "executor-batch-past-action"

    /// Re-entrant deadlock: `ObserveOnQueue.dispose` destroys the queued
    /// elements (and a pending terminal event) while it holds its lock, which
    /// is not re-entrant: an element whose deinit sends an event into the
    /// same chain waits for that lock forever. Breaks guarantees 3 and 8
    /// (dispose returns; no user code runs under a library lock).
    case observeOnDeinitReentry = "observe-on-deinit-reentry"

    /// Virtual time out of order: `VirtualSchedulerQueue` breaks a tie
    /// between equal due times by the higher sequence number, so of two
    /// actions due at once the later-scheduled runs first. Breaks guarantee
    /// 2 (actions due at the same time run in scheduling order) and with it 5.
    case virtualTimeTiesReversed = "virtual-time-ties-reversed"

    /// Double dispose of a composite's child: `CompositeDisposable`'s
    /// dispose returns its members on every call (no "already disposed"
    /// check, members not cleared), so each dispose() disposes every child
    /// again. Breaks guarantee 7 (each member disposed exactly once).
    case compositeDoubleDispose = "composite-double-dispose"

    /// Leak on replacement: assigning `SerialDisposable.disposable` forgets to
    /// dispose the disposable it replaces. Breaks guarantee 7 (every assigned
    /// disposable is disposed exactly once).
    case serialLeaksReplaced = "serial-leaks-replaced"

    /// Check-then-act across two critical sections: `DisposeBag.insert`
    /// checks "torn down?" under the lock, then appends under the lock again,
    /// so a teardown between the two strands the new member. Breaks guarantee
    /// 7 (a member inserted during teardown is disposed at once).
    case disposeBagCheckThenAct = "dispose-bag-check-then-act"

    /// Run after dispose: `SingleAssignmentDisposable` keeps a disposable
    /// assigned after its dispose() instead of disposing it, so a scheduled
    /// action whose holder was disposed first still runs. Breaks guarantees
    /// 5 and 7.
    case singleAssignmentKeepsLate = "single-assignment-keeps-late"

    /// A compare-exchange weakened to a store: `ScheduledActionPhase.finish`
    /// publishes `finished` with a plain store, overwriting a disposal that
    /// came while the action ran, so nobody disposes its result. Shared by
    /// every scheduler's item. Breaks guarantee 5 (what a running action
    /// returns is disposed once it returns).
    case cellPublishByStore = "cell-publish-by-store"

    /// The broken cell: `ScheduledActionPhase.dispose` splits its exchange
    /// into a load and a store, so a runner's `finish()` landing between the
    /// two is overwritten and nobody disposes the action's result. Shared by
    /// every scheduler's item; scripts/stress-explore-broken.sh shows
    /// exploration reporting it, and a schedule recorded with it refused on
    /// the correct library. Breaks guarantee 5.
    case brokenCell = "broken-cell"

    /// Lost wake-up: `ObserveOnSink.drain` delivers one batch and returns
    /// without looking again, while the state machine still says a drain is
    /// scheduled, so elements that arrived during the batch wait for a drain
    /// nobody schedules. Breaks guarantee 3 (every element is delivered).
    case observeOnLostWakeUp = "observe-on-lost-wakeup"

    /// Dispose off its scheduler: `SubscribeOnSink.dispose` disposes the
    /// source's subscription inline on the disposing thread instead of on the
    /// scheduler. Breaks guarantee 4.
    case subscribeOnDisposeInline = "subscribe-on-dispose-inline"

    /// A lost disposal on a race: a `subscribe(on:)` subscription that
    /// finishes after dispose() came keeps what the source returned instead
    /// of disposing it. Breaks guarantees 4 and 7.
    case subscribeOnDropsLateSubscription = "subscribe-on-drops-late-subscription"

    /// Missed cancel in a periodic job: `DispatchPeriodicTimer.dispose` that
    /// finds a tick running leaves the job to that tick instead of marking
    /// it disposed and cancelling its timer, so the job ticks on. Native
    /// periodic jobs on the dispatch and operation-queue schedulers. Breaks
    /// guarantee 6 (no tick starts after dispose() returns).
    case periodicMissedCancel = "periodic-missed-cancel"

    /// A data race: the emulated periodic job's dispose() takes a fast path
    /// that reads `phase` without the lock its ticks write it under. Harmless
    /// on paper, undefined behaviour in Swift (a torn enum read); only a race
    /// detector sees it. Breaks the lock discipline guarantee 6 rests on.
    case emulatedPeriodicUnlockedRead = "emulated-periodic-unlocked-read"

    /// State kept after dispose: a recursive trampoline chain releases its
    /// action and queued state only when it finishes normally, not when a
    /// dispose() from another thread ended it. Breaks guarantee 8 (a
    /// disposed chain's action and state are released once it drained).
    case recursionKeepsState = "recursion-keeps-state"

    /// An executor running a job on the wrong queue: a serial dispatch
    /// scheduler's `SerialSchedulerExecutor` hands its jobs to the global
    /// queue of the same quality of service instead of the scheduler's own
    /// queue. Breaks the executor's isolation (guarantee 5 on an actor).
    case executorWrongQueue = "executor-wrong-queue"

    /// Check-then-act on one atomic: `ScheduledDisposable.dispose` loads
    /// `disposed`, then stores `true`, instead of exchanging it, so two
    /// disposers can both schedule the disposal and both take the wrapped
    /// disposable (a data race). Breaks guarantee 7.
    case scheduledDisposableSplitExchange = "scheduled-disposable-split-exchange"

    /// Lost parallelism: `ConcurrentJobs.add` (the concurrent dispatch
    /// scheduler's `taskExecutor`) starts a run of its block only while fewer
    /// runs are on the queue than jobs wait, so a run busy with a job counts
    /// as free for a new one, and a job enqueued while another runs waits for
    /// that job to end. Breaks the executor's promise that jobs run at once
    /// on up to `width` threads (guarantee 10, progress: parallelism).
    case taskExecutorBusyRunnerFree = "task-executor-busy-runner-free"

    /// A timer past the batch gate: a `SerialDispatchQueueScheduler`'s timers
    /// (`scheduleRelative`, periodic ticks, `interval`) fire on the scheduler's
    /// queue itself, as a block the open batch of executor jobs is not
    /// closed for, so every job that joins the batch meanwhile runs first and
    /// a steady stream of jobs holds the timer back without bound. Breaks
    /// guarantee 10 (progress: a timer that fell due is not overtaken by work
    /// enqueued after it).
    case timerPastBatchGate = "timer-past-batch-gate"

    /// A lost timer wake-up: a periodic tick that a gated timer
    /// (`DispatchPeriodicTimer.runForwardedTick`, on a
    /// `SerialDispatchQueueScheduler`) enqueued says it is no longer on the
    /// queue only after its action ran, in a critical section of its own, so
    /// a fire during the tick enqueues nothing and waits for the next fire
    /// (or forever, if none comes). Breaks guarantee 10 (progress: a tick
    /// that fell due runs) and miscounts guarantee 6's skipped ticks.
    case timerLostWakeup = "timer-lost-wakeup"

    /// An unbounded batch: a fired timer's work passes the gate's lock
    /// (`ExecutorBatchGate.enqueueFiredTimer`) but leaves the executor's
    /// batch open, so jobs enqueued after the timer fired join a batch whose
    /// block the queue holds ahead of the timer's work: the batch grows for
    /// as long as jobs keep coming and the timer waits behind all of them.
    /// Breaks guarantee 10 (progress: due-time order).
    case executorUnboundedBatch = "executor-unbounded-batch"

    /// The mutant `SCHEDULERS_MUTANT` names, read once; `nil` (the correct
    /// library) when it is unset or empty. A name that is no case stops the
    /// program with the list of names, so a typo cannot pass for a mutant
    /// the stress suite missed.
    @usableFromInline
    static let active: Mutant? = {
        guard let name = ProcessInfo.processInfo.environment["SCHEDULERS_MUTANT"], !name.isEmpty else {
            return nil
        }
        guard let mutant = Mutant(rawValue: name) else {
            preconditionFailure(
                "SCHEDULERS_MUTANT=\(name) is no mutant; the mutants are: "
                    + allCases.map(\.rawValue).joined(separator: ", "))
        }
        return mutant
    }()
}
#endif
