import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A task executor whose jobs a schedule controller runs on its hand-off
/// workers, so a Swift task started with it as its executor preference
/// (`Task(executorPreference:)`, `Task.detached(executorPreference:)`,
/// `Task.immediate(executorPreference:)`) runs every job that is not
/// isolated to an actor on controlled threads, one step at a time, in an
/// order the schedule decides; an actor with its own executor (a
/// `SerialSchedulerExecutor`) still runs its jobs on that executor, whose
/// enqueue passes the library's hand-off seam.
///
/// Its jobs form one concurrent line of the controller: the jobs of one
/// task come one at a time anyway (a task has at most one job enqueued),
/// those of different tasks may interleave. A job enqueued from a thread the
/// controller runs passes a sync point first, like any hand-off; one
/// enqueued while the controller prepares a schedule's state on its own
/// thread (`ScheduleController.preparing`: a task created in `makeState`)
/// joins the line at once. A job enqueued from any other thread is a stray:
/// it runs on a global queue, and the schedule ends as
/// `ScheduleEnd.uncontrolledJob`, since the schedule no longer decides the run.
final class ControlledTaskExecutor: TaskExecutor, @unchecked Sendable {
    private weak var controller: ScheduleController?

    init(controller: ScheduleController) {
        self.controller = controller
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let run: @Sendable () -> Void = { [self] in
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
        if let controller {
            if let box = ControlledPartyBox.current, box.party.controller === controller {
                if controller.handOff(from: box, to: self, barrier: false, block: run) {
                    return
                }
            } else if controller.acceptWhilePreparing(run, on: self) {
                return
            } else {
                controller.noteStrayJob()
            }
        }
        DispatchQueue.global().async(execute: run)
    }
}
