import Schedulers

/// `observe(on:)` disposed while elements (and perhaps its terminal error)
/// are still queued, where dropping an element or the error runs user code
/// that sends an event into the same chain (guarantees 3, 7 and 8 in
/// Guarantees.md, and the rule that the library runs no user code under a
/// lock of its own).
///
/// Actor 0 keeps the scheduler busy for a moment (in half the iterations),
/// then sends three elements, each of which, when destroyed, sends one more
/// element upstream of `observe(on:)`; in half the iterations it then fails
/// the source with an error that does the same when destroyed. Actor 1
/// disposes the subscription from its own thread. Disposal drops whatever is
/// queued: the drop must not call back into a lock the disposal holds, so
/// `dispose()` returns, and every element is freed.
final class ObserveOnDeinitReentry: SchedulerScenario, StressScenario, @unchecked Sendable {
    enum Outcome: String, ScenarioOutcome {
        case noneDelivered = "disposed-before-any-delivery"
        case someDelivered = "some-delivered-then-disposed"
        case allDelivered = "all-delivered-then-disposed"
        case overlappingCalls = "observer-called-concurrently"
        case wrongOrder = "out-of-order-or-duplicate"
        case hung = "never-settled"

        /// A scheduler that did not settle stops the scenario.
        var stopsTheRun: Bool { self == .hung }
        var grade: Grade {
            switch self {
            case .noneDelivered, .someDelivered, .allDelivered: .acceptable
            case .overlappingCalls, .wrongOrder, .hung: .forbidden
            }
        }
        var meaning: String {
            switch self {
            case .noneDelivered: "dispose ran before any element was delivered"
            case .someDelivered: "some elements were delivered, then dispose dropped the rest (their deinits sent events)"
            case .allDelivered: "every element was delivered before dispose"
            case .overlappingCalls: "the observer was called concurrently with itself"
            case .wrongOrder: "the sent elements arrived out of order or twice"
            case .hung: "the scheduler did not drain within its stall timeout"
            }
        }
    }

    /// An element that, when destroyed, sends an element without a sender
    /// of its own into the chain it travelled through.
    final class Payload: @unchecked Sendable {
        let value: Int
        private let sendOnDeinit: AnyObserver<Payload>?
        private let live: LiveCounter
        let token: LiveToken

        init(_ value: Int, sendOnDeinit: AnyObserver<Payload>?, live: LiveCounter) {
            self.value = value
            self.sendOnDeinit = sendOnDeinit
            self.live = live
            token = LiveToken(live)
        }

        deinit {
            sendOnDeinit?.onNext(Payload(-1, sendOnDeinit: nil, live: live))
        }
    }

    /// An error that, when destroyed, sends an element into the chain.
    struct PayloadError: Error, @unchecked Sendable {
        let payload: Payload
    }

    /// What the observer saw; read by the arbiter after the scheduler settled.
    final class DeliveryLog: @unchecked Sendable {
        private let received = Locked<[Int]>([])
        let overlapped = Flag()
        let inFlight = Counter()

        func deliver(_ value: Int) {
            if inFlight.increment() > 1 {
                overlapped.set()
            }
            received.withLock { $0.append(value) }
            inFlight.decrement()
        }

        /// The values of the elements actor 0 sent, in delivery order.
        var sentValues: [Int] {
            received.withLock { $0.filter { $0 >= 0 } }
        }
    }

    final class State: @unchecked Sendable {
        let log = DeliveryLog()
        let observer = Handoff<AnyObserver<Payload>>()
        let subscription: Disposable
        let busy: Bool
        let fails: Bool
        let disposeDelay: Int
        let token: LiveToken

        init(_ live: LiveCounter, scheduler: ImmediateScheduler, path: ObserveOnPath, choices: inout IterationChoices) {
            let log = log
            let observer = observer
            busy = choices.pick(2) == 0
            fails = choices.pick(2) == 0
            disposeDelay = choices.pick(4_000)
            token = LiveToken(live)
            subscription = Observable<Payload>.create { sent in
                observer.publish(sent)
                return Disposables.create()
            }
            .observe(on: scheduler, path: path)
            .subscribe(onNext: { log.deliver($0.value) })
        }
    }

    private let path: ObserveOnPath

    /// Creates the scenario for the registered scheduler, on `path`.
    init(_ registration: StressScheduler, path: ObserveOnPath = .automatic) {
        self.path = path
        let pathName = path == .generic ? "-generic-path" : ""
        super.init(
            registration, name: "observeOn-deinit-reentry.\(registration.name)\(pathName)", guarantees: "3, 7, 8",
            summary: "\(registration.name)\(path == .generic ? " (generic path)" : ""): observeOn is disposed while "
                + "elements whose deinit sends an event into the chain are queued",
            explorationWorkers: 2)  // the busy gate and the drain
    }

    func makeState(_ choices: inout IterationChoices) -> State {
        State(live, scheduler: scheduler.current.unsafelyUnwrapped.scheduler, path: path, choices: &choices)
    }

    func act(_ actor: Int, on state: State) {
        if actor == 0 {
            if state.busy {
                let started = Flag()
                scheduler.current.unsafelyUnwrapped.enqueueGate {
                    started.set()
                    spinDelay(nanoseconds: 3_000)
                }
                // Under a schedule controller the gate runs when the schedule
                // says so; waiting here would only burn the step.
                if !Exploration.isControlledThread {
                    started.spinBriefly()
                }
            }
            let sent = state.observer.wait()
            for value in 0..<3 {
                sent.onNext(Payload(value, sendOnDeinit: sent, live: live))
            }
            if state.fails {
                sent.onError(PayloadError(payload: Payload(3, sendOnDeinit: sent, live: live)))
            }
        } else {
            spinDelay(nanoseconds: state.disposeDelay)
            state.subscription.dispose()
        }
    }

    func settle() {
        scheduler.settle(rounds: 2)
    }

    func arbitrate(_ state: State) -> Outcome {
        guard scheduler.settledInTime else { return .hung }
        if state.log.overlapped.isSet {
            return .overlappingCalls
        }
        let values = state.log.sentValues
        guard values == Array(0..<values.count) else { return .wrongOrder }
        switch values.count {
        case 0: return .noneDelivered
        case 3: return .allDelivered
        default: return .someDelivered
        }
    }
}
