import Schedulers

/// A scheduler that runs every action at once, inside the call.
final class InlineScheduler: ImmediateScheduler, @unchecked Sendable {
    private(set) var scheduledCount = 0

    func schedule<StateType>(_ state: StateType, action: @escaping (StateType) -> Disposable) -> Disposable {
        scheduledCount += 1
        return action(state)
    }
}
