import Dispatch
import Foundation
import Schedulers

/// `observe(on:)` on an `OperationQueueScheduler` whose queue is told to
/// `cancelAllOperations()` while elements flow (guarantee 3; the scheduler's
/// contract: cancelling drops the pending work, and work scheduled
/// afterwards runs normally).
///
/// Actor 0 sends three elements through `observe(on:)`; actor 1 cancels
/// every operation of the scheduler's queue (two at a time, as an
/// application's queue would run). A cancelled drain must not leave the
/// subscription waiting for a drain that will never come: after both actors
/// returned, one more element is sent, and it and every element before it
/// must arrive, once each, in order.
final class CancelAllOperationsVersusObserveOn: StressScenario, @unchecked Sendable {
    enum Outcome: String, ScenarioOutcome {
        case cancelledFirst = "cancelled-before-any-delivery"
        case cancelledBetween = "cancelled-between-deliveries"
        case cancelledLast = "cancelled-after-every-delivery"
        case stalled = "stalled-after-cancel"
        case wrongOrder = "out-of-order-or-duplicate"

        var grade: Grade {
            switch self {
            case .cancelledFirst, .cancelledBetween, .cancelledLast: .acceptable
            case .stalled, .wrongOrder: .forbidden
            }
        }
        var meaning: String {
            switch self {
            case .cancelledFirst: "the queue was cancelled before any element was delivered; all arrived afterwards"
            case .cancelledBetween: "the queue was cancelled between deliveries; the rest arrived afterwards"
            case .cancelledLast: "the queue was cancelled after every element was delivered"
            case .stalled: "an element sent after cancelAllOperations() did not arrive within 2 s (observe(on:) stalled)"
            case .wrongOrder: "the elements arrived out of order or twice"
            }
        }
    }

    /// Elements sent by actor 0; the one sent after the actors is this.
    static let elementCount = 3

    final class State: @unchecked Sendable {
        private let received = Locked<[Int]>([])
        let deliveredAtCancel = Locked<Int?>(nil)
        let arrivedLast = DispatchSemaphore(value: 0)
        let observer = Handoff<AnyObserver<Int>>()
        let subscription: Disposable
        let cancelDelay: Int
        let token: LiveToken

        init(_ live: LiveCounter, scheduler: OperationQueueScheduler, choices: inout IterationChoices) {
            cancelDelay = choices.pick(6_000)
            token = LiveToken(live)
            let received = received, arrivedLast = arrivedLast, observer = observer
            subscription = Observable<Int>.create { sent in
                observer.publish(sent)
                return Disposables.create()
            }
            .observe(on: scheduler)
            .subscribe(onNext: { value in
                received.withLock { $0.append(value) }
                if value == CancelAllOperationsVersusObserveOn.elementCount {
                    arrivedLast.signal()
                }
            })
        }

        var values: [Int] {
            received.withLock { $0 }
        }

        /// How many elements arrived so far; counted under the lock, while
        /// the observer may still append (a copy of the array taken out of
        /// the lock would be read while the observer reuses its storage).
        var deliveredCount: Int {
            received.withLock { $0.count }
        }
    }

    let name = "cancel-all-vs-observeOn.operation-queue"
    let guarantees = "3"
    let summary = "operation-queue (2 at a time): elements flow through observeOn while the queue's operations are all cancelled"
    let actorCount = 2
    let live = LiveCounter()
    private var queue: OperationQueue?
    private var scheduler: OperationQueueScheduler?

    func setUp() {
        let queue = OperationQueue()
        queue.name = "stress.cancel-all"
        queue.maxConcurrentOperationCount = 2
        self.queue = queue
        scheduler = OperationQueueScheduler(operationQueue: queue)
    }

    func tearDown() {
        queue?.waitUntilAllOperationsAreFinished()
        scheduler = nil
        queue = nil
    }

    func makeState(_ choices: inout IterationChoices) -> State {
        State(live, scheduler: scheduler.unsafelyUnwrapped, choices: &choices)
    }

    func act(_ actor: Int, on state: State) {
        if actor == 0 {
            let sent = state.observer.wait()
            for value in 0..<Self.elementCount {
                sent.onNext(value)
            }
        } else {
            spinDelay(nanoseconds: state.cancelDelay)
            let delivered = state.deliveredCount
            state.deliveredAtCancel.withLock { $0 = delivered }
            queue.unsafelyUnwrapped.cancelAllOperations()
        }
    }

    func arbitrate(_ state: State) -> Outcome {
        // Work scheduled after the cancel runs normally: one more element
        // must reach the observer, after the three before it.
        state.observer.wait().onNext(Self.elementCount)
        let arrived = state.arrivedLast.wait(timeout: .now() + 2) == .success
        state.subscription.dispose()
        guard arrived else { return .stalled }
        guard state.values == Array(0...Self.elementCount) else { return .wrongOrder }
        switch state.deliveredAtCancel.withLock({ $0 }) ?? 0 {
        case 0: return .cancelledFirst
        case Self.elementCount...: return .cancelledLast
        default: return .cancelledBetween
        }
    }
}
