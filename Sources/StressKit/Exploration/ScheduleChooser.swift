/// Picks, at every step of one schedule, which controlled thread goes next.
protocol ScheduleChooser {
    /// The thread to run next: one of `enabled` (never empty, ascending).
    /// `previous` is the thread that ran the step before, if any.
    mutating func choose(among enabled: [Int], previous: Int?) -> Int
    /// Thread `thread` starts a new life in this schedule: a party at the
    /// start, or a hand-off worker given a new block (each block is a new
    /// thread of the schedule, though it runs in a reused worker slot).
    mutating func threadStarted(_ thread: Int)
}

extension ScheduleChooser {
    mutating func threadStarted(_ thread: Int) {}
}

/// How one schedule ended.
enum ScheduleEnd: Equatable, Sendable {
    /// Every thread returned.
    case completed
    /// Every thread that had not returned was waiting for another (a lock
    /// held by a waiter, or spinning on each other).
    case deadlock
    /// The schedule took more than the step budget (a livelock, or a
    /// scenario far bigger than exploration is meant for).
    case stepBudgetExceeded
    /// A thread did not reach its next sync point in time: it blocked on
    /// something the controller does not see (a semaphore, a queue).
    case stuckOutsideSeam
    /// A job of a task on the controller's task executor was enqueued from
    /// a thread the controller does not run (see `ControlledTaskExecutor`).
    case uncontrolledJob

    /// The undeclared outcome a scenario's table shows for it: forbidden,
    /// since exploration stopped at it.
    var outcome: OutcomeDeclaration? {
        let (id, cause): (String, String)
        switch self {
        case .completed:
            return nil
        case .deadlock:
            (id, cause) = ("explore.deadlock", "every unfinished thread waited for another (deadlock)")
        case .stepBudgetExceeded:
            (id, cause) = ("explore.no-progress", "the schedule exceeded its step budget (livelock?)")
        case .stuckOutsideSeam:
            (id, cause) = ("explore.stuck", "a thread blocked outside the sync points")
        case .uncontrolledJob:
            (id, cause) = ("explore.uncontrolled-job", "a task's job was enqueued from a thread no controller runs")
        }
        return OutcomeDeclaration(id: id, grade: .forbidden, meaning: cause + "; exploration stopped")
    }
}
