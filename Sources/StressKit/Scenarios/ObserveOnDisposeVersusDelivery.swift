import Schedulers

/// `observe(on:)`: a source emits from one thread while another thread
/// disposes the subscription from an action on the scheduler
/// (guarantees 2, 3, 7 and 8 in Guarantees.md).
///
/// On a serial scheduler, once that `dispose()` has returned on the
/// scheduler, no further event reaches the observer. On every scheduler the
/// observer sees the elements in order, never twice, never two calls at
/// once, and the source's own disposable is disposed exactly once.
final class ObserveOnDisposeVersusDelivery: SchedulerScenario, StressScenario, @unchecked Sendable {
    enum Outcome: String, ScenarioOutcome {
        case noneDelivered = "disposed-before-any-delivery"
        case someDelivered = "some-delivered-then-disposed"
        case allDelivered = "all-delivered-then-disposed"
        case eventAfterDisposeOnConcurrent = "event-after-dispose-concurrent-scheduler"
        case eventAfterDispose = "event-after-dispose-returned"
        case wrongOrder = "out-of-order-or-duplicate"
        case overlappingCalls = "observer-called-concurrently"
        case sourceNotDisposedOnce = "source-not-disposed-exactly-once"
        case hung = "never-settled"

    /// A scheduler that did not settle stops the scenario (see `ScenarioOutcome.stopsTheRun`).
    var stopsTheRun: Bool { self == .hung }
        var grade: Grade {
            switch self {
            case .noneDelivered, .someDelivered, .allDelivered: .acceptable
            case .eventAfterDisposeOnConcurrent: .interesting
            case .eventAfterDispose, .wrongOrder, .overlappingCalls, .sourceNotDisposedOnce, .hung: .forbidden
            }
        }
        var meaning: String {
            switch self {
            case .noneDelivered: "the dispose action ran before any element was delivered"
            case .someDelivered: "some elements were delivered, then dispose cut the rest off"
            case .allDelivered: "every element was delivered before the dispose action ran"
            case .eventAfterDisposeOnConcurrent: "an element reached the observer after dispose returned (allowed: concurrent scheduler)"
            case .eventAfterDispose: "an element reached the observer after dispose() returned on the serial scheduler"
            case .wrongOrder: "elements arrived out of order or twice"
            case .overlappingCalls: "the observer was called concurrently with itself"
            case .sourceNotDisposedOnce: "the source's disposable was disposed 0 or 2+ times"
            case .hung: "the scheduler did not drain within its stall timeout (10 s unless registered otherwise)"
            }
        }
    }

    /// How many elements the source emits.
    static let elementCount = 3

    /// What the observer saw. Written by the observer (on the scheduler) and
    /// the dispose action; read by the arbiter after the scheduler settled.
    final class DeliveryLog: @unchecked Sendable {
        private let received = Locked<[Int]>([])
        let disposeReturned = Flag()
        let afterDispose = Flag()
        let overlapped = Flag()
        let inFlight = Counter()
        let token: LiveToken

        init(_ live: LiveCounter) {
            token = LiveToken(live)
        }

        func deliver(_ value: Int) {
            if inFlight.increment() > 1 {
                overlapped.set()
            }
            if disposeReturned.isSet {
                afterDispose.set()
            }
            received.withLock { $0.append(value) }
            inFlight.decrement()
        }

        var values: [Int] {
            received.withLock { $0 }
        }
    }

    /// The source's side: the observer it was given, for the emitting actor.
    final class Emitter: @unchecked Sendable {
        let observer = Handoff<AnyObserver<Int>>()
        let sourceDisposable: ProbeDisposable
        let token: LiveToken

        init(_ live: LiveCounter) {
            sourceDisposable = ProbeDisposable(live)
            token = LiveToken(live)
        }
    }

    final class State: @unchecked Sendable {
        let log: DeliveryLog
        let emitter: Emitter
        let subscription: Disposable
        let emitGaps: [Int]
        let disposeDelay: Int

        init(_ live: LiveCounter, scheduler: ImmediateScheduler, path: ObserveOnPath, choices: inout IterationChoices) {
            let log = DeliveryLog(live)
            let emitter = Emitter(live)
            self.log = log
            self.emitter = emitter
            emitGaps = (0..<ObserveOnDisposeVersusDelivery.elementCount).map { _ in choices.pick(1_500) }
            disposeDelay = choices.pick(6_000)
            subscription = Observable<Int>.create { observer in
                emitter.observer.publish(observer)
                return emitter.sourceDisposable
            }
            .observe(on: scheduler, path: path)
            .subscribe(onNext: { value in log.deliver(value) })
        }
    }

    private let path: ObserveOnPath

    /// Creates the scenario for the registered scheduler, on `path`.
    init(_ registration: StressScheduler, path: ObserveOnPath = .automatic) {
        self.path = path
        let pathName = path == .generic ? "-generic-path" : ""
        // Explorable on the library's schedulers on both paths: the schedulers
        // and the serial fast path hand their work through the library's seam.
        super.init(
            registration, name: "dispose-vs-observeOn.\(registration.name)\(pathName)", guarantees: "2, 3, 7, 8",
            summary: "\(registration.name)\(path == .generic ? " (generic path)" : ""): a source emits from one thread "
                + "while an action on the scheduler disposes the observeOn subscription",
            explorationWorkers: 3)  // drains and the scheduled disposal, each on a worker
    }

    func makeState(_ choices: inout IterationChoices) -> State {
        State(live, scheduler: scheduler.current.unsafelyUnwrapped.scheduler, path: path, choices: &choices)
    }

    func act(_ actor: Int, on state: State) {
        if actor == 0 {
            let observer = state.emitter.observer.wait()
            for (value, gap) in state.emitGaps.enumerated() {
                spinDelay(nanoseconds: gap)
                observer.onNext(value)
            }
        } else {
            spinDelay(nanoseconds: state.disposeDelay)
            let subscription = state.subscription
            let log = state.log
            _ = scheduler.current.unsafelyUnwrapped.scheduler.schedule(()) { _ in
                subscription.dispose()
                log.disposeReturned.set()
                return Disposables.create()
            }
        }
    }

    func settle() {
        scheduler.settle()
    }

    func arbitrate(_ state: State) -> Outcome {
        guard scheduler.settledInTime, state.log.disposeReturned.isSet else { return .hung }
        if state.log.overlapped.isSet {
            return .overlappingCalls
        }
        let values = state.log.values
        guard values == Array(0..<values.count) else { return .wrongOrder }
        guard state.emitter.sourceDisposable.disposeCount == 1 else { return .sourceNotDisposedOnce }
        if state.log.afterDispose.isSet {
            return scheduler.current?.isSerial == true ? .eventAfterDispose : .eventAfterDisposeOnConcurrent
        }
        switch values.count {
        case 0: return .noneDelivered
        case Self.elementCount: return .allDelivered
        default: return .someDelivered
        }
    }
}
