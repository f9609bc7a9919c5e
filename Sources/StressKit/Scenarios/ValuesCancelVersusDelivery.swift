import Dispatch
import Schedulers
import Synchronization

/// `observable.values`: a task iterates the elements of an `Observable.create`
/// while one thread emits into it and another cancels the task (guarantees
/// 3, 7 and 8 in Guarantees.md, across the Swift Concurrency bridge).
///
/// Cancelling the task is disposing the subscription. Once `Task.cancel()`
/// has returned, no element emitted after that reaches the consumer, and no
/// `next()` begun after that returns an element; the iteration then ends
/// (`next()` returns `nil`, never throws), the elements that did arrive came
/// in order and once each, the source's disposable is disposed exactly once
/// if the task subscribed at all, and everything the iteration held is freed.
final class ValuesCancelVersusDelivery: StressScenario, @unchecked Sendable {
    enum Outcome: String, ScenarioOutcome {
        case cancelledBeforeSubscribing = "cancelled-before-subscribing"
        case noneDelivered = "cancelled-before-any-delivery"
        case someDelivered = "some-delivered-then-cancelled"
        case allDelivered = "all-delivered-then-cancelled"
        case deliveredAfterCancel = "delivered-after-cancel-returned"
        case wrongOrder = "out-of-order-or-duplicate"
        case threw = "iteration-threw"
        case sourceNotDisposedOnce = "source-not-disposed-exactly-once"
        case hung = "iteration-never-ended"

        var grade: Grade {
            switch self {
            case .cancelledBeforeSubscribing, .noneDelivered, .someDelivered, .allDelivered: .acceptable
            case .deliveredAfterCancel, .wrongOrder, .threw, .sourceNotDisposedOnce, .hung: .forbidden
            }
        }
        var meaning: String {
            switch self {
            case .cancelledBeforeSubscribing: "the task was cancelled before its first next() subscribed"
            case .noneDelivered: "the task subscribed, then was cancelled before any element reached it"
            case .someDelivered: "some elements reached the task, then cancellation ended the iteration"
            case .allDelivered: "every element reached the task before cancellation ended the iteration"
            case .deliveredAfterCancel:
                "an element emitted after Task.cancel() returned, or a next() begun after it, reached the task"
            case .wrongOrder: "elements reached the task out of order or twice"
            case .threw: "next() threw instead of returning nil on cancellation"
            case .sourceNotDisposedOnce: "the task subscribed, but the source's disposable was disposed 0 or 2+ times"
            case .hung: "the iteration did not end within 10 s of the cancellation"
            }
        }
    }

    /// How many elements the emitter sends.
    static let elementCount = 3

    /// What the consuming task saw; the arbiter reads it once `ended` is signalled.
    final class ConsumerLog: @unchecked Sendable {
        private let received = Locked<[Int]>([])
        /// A `next()` that began after `Task.cancel()` returned gave an element.
        let elementFromLateNext = Flag()
        let threw = Flag()
        /// Set, then signalled, when the iteration has ended.
        let endedFlag = Flag()
        let ended = DispatchSemaphore(value: 0)

        func append(_ value: Int) {
            received.withLock { $0.append(value) }
        }

        var values: [Int] {
            received.withLock { $0 }
        }
    }

    final class State: ScenarioState, @unchecked Sendable {
        let observer = Handoff<AnyObserver<Int>>()
        let sourceDisposable: ProbeDisposable
        let log = ConsumerLog()
        let cancelReturned = Flag()
        /// The first element the emitter sent after `Task.cancel()` had returned.
        let firstEmittedAfterCancel = Atomic<Int>(Int.max)
        let consumer: Task<Void, Never>
        let emitGaps: [Int]
        let cancelDelay: Int

        init(_ live: LiveCounter, choices: inout IterationChoices) {
            let observer = self.observer
            let sourceDisposable = ProbeDisposable(live)
            let token = LiveToken(live)
            let log = self.log
            let cancelReturned = self.cancelReturned
            self.sourceDisposable = sourceDisposable
            emitGaps = (0..<ValuesCancelVersusDelivery.elementCount).map { _ in choices.pick(1_500) }
            cancelDelay = choices.pick(8_000)
            let source = Observable<Int>.create { subscriber in
                _ = token
                observer.publish(subscriber)
                return sourceDisposable
            }
            // Under a schedule controller the task's jobs run on its workers.
            consumer = Task.detached(executorPreference: Exploration.taskExecutor) {
                var iterator = source.values.makeAsyncIterator()
                do {
                    while true {
                        let begunAfterCancel = cancelReturned.isSet
                        guard let value = try await iterator.next() else { break }
                        if begunAfterCancel {
                            log.elementFromLateNext.set()
                        }
                        log.append(value)
                    }
                } catch {
                    log.threw.set()
                }
                log.endedFlag.set()
                log.ended.signal()
            }
        }
    }

    let name = "cancel-vs-values.task"
    /// Explorable: under a schedule controller the consumer task prefers
    /// the controller's task executor (`Exploration.taskExecutor`), so its
    /// jobs run on the controller's workers (see `StressScenario.explorationBlocker`).
    let explorationBlocker: String? = nil
    /// The consumer task's jobs (one at a time), and one to spare.
    let explorationWorkers = 2
    let guarantees = "3, 7, 8"
    let summary = "observable.values: one thread emits while another cancels the iterating task"
    let actorCount = 2
    let live = LiveCounter()


    func act(_ actor: Int, on state: State) {
        if actor == 0 {
            // The task subscribes on its first next(), unless it was cancelled before.
            var backoff = Backoff()
            var subscriber = state.observer.current
            while subscriber == nil {
                if state.log.endedFlag.isSet { return }
                backoff.pause()
                subscriber = state.observer.current
            }
            guard let subscriber else { return }
            for (value, gap) in state.emitGaps.enumerated() {
                spinDelay(nanoseconds: gap)
                if state.cancelReturned.isSet {
                    _ = state.firstEmittedAfterCancel.compareExchange(
                        expected: Int.max, desired: value, ordering: .relaxed)
                }
                subscriber.onNext(value)
            }
        } else {
            spinDelay(nanoseconds: state.cancelDelay)
            // The runtime runs the cancellation handler under the task's
            // status-record lock, which the consumer's thread needs to leave
            // next(): under a controller the cancel is one step.
            Exploration.asOneStep {
                state.consumer.cancel()
            }
            state.cancelReturned.set()
        }
    }

    func arbitrate(_ state: State) -> Outcome {
        guard state.log.ended.wait(timeout: .now() + 10) == .success else { return .hung }
        if state.log.threw.isSet {
            return .threw
        }
        let values = state.log.values
        guard values == Array(0..<values.count) else { return .wrongOrder }
        let firstLate = state.firstEmittedAfterCancel.load(ordering: .relaxed)
        if state.log.elementFromLateNext.isSet || values.contains(where: { $0 >= firstLate }) {
            return .deliveredAfterCancel
        }
        guard state.observer.current != nil else {
            return state.sourceDisposable.disposeCount == 0 ? .cancelledBeforeSubscribing : .sourceNotDisposedOnce
        }
        guard state.sourceDisposable.disposeCount == 1 else { return .sourceNotDisposedOnce }
        switch values.count {
        case 0: return .noneDelivered
        case Self.elementCount: return .allDelivered
        default: return .someDelivered
        }
    }
}
