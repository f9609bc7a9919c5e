import Schedulers

/// A scheduler that runs every action at once, inside the call.
///
/// Not `TestScheduler`: that one queues every action until it is driven, so
/// it cannot show what a sequence does when the scheduler runs work inline.
final class InlineScheduler: ImmediateScheduler, @unchecked Sendable {
    private(set) var scheduledCount = 0

    func schedule<StateType>(_ state: StateType, action: @escaping (StateType) -> Disposable) -> Disposable {
        scheduledCount += 1
        return action(state)
    }
}
