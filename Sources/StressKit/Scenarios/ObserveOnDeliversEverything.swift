import Schedulers

/// `observe(on:)` without a dispose: a source emits from one thread while
/// the scheduler drains (guarantee 3 in Guarantees.md).
///
/// Once the scheduler has settled, every element and the completion have
/// reached the observer, in order, once each. The race is between the
/// emitting thread handing an element over and a drain finding the queue
/// empty and going idle: an element that lands in between must still be
/// delivered (a lost wake-up strands it).
final class ObserveOnDeliversEverything: SchedulerScenario, StressScenario, @unchecked Sendable {
    enum Outcome: String, ScenarioOutcome {
        case caughtUp = "drain-caught-up-with-source"
        case batched = "delivered-after-source-finished"
        case stranded = "element-or-completion-never-delivered"
        case wrongOrder = "out-of-order-or-duplicate"
        case hung = "never-settled"

        var grade: Grade {
            switch self {
            case .caughtUp, .batched: .acceptable
            case .stranded, .wrongOrder, .hung: .forbidden
            }
        }
        var meaning: String {
            switch self {
            case .caughtUp: "some element was delivered before the source emitted the next: a drain went idle in between"
            case .batched: "every element but the last arrived after the source had emitted the next one"
            case .stranded: "the scheduler settled, yet an element or the completion never reached the observer"
            case .wrongOrder: "elements arrived out of order or twice"
            case .hung: "the scheduler did not drain within its stall timeout (10 s unless registered otherwise)"
            }
        }
    }

    static let elementCount = 3

    final class State: @unchecked Sendable {
        let observer = Handoff<AnyObserver<Int>>()
        /// Written by the observer (on the scheduler), read by the arbiter
        /// after the scheduler settled.
        let received = Locked<[Int]>([])
        let completed = Flag()
        /// How many `onNext` calls of the source have returned, read by the observer.
        let emitted = Counter()
        /// Set when an element arrived before the source emitted the next one.
        let caughtUp = Flag()
        let emitGaps: [Int]
        let token: LiveToken
        var subscription: Disposable?

        init(_ live: LiveCounter, scheduler: ImmediateScheduler, choices: inout IterationChoices) {
            token = LiveToken(live)
            emitGaps = (0...ObserveOnDeliversEverything.elementCount).map { _ in choices.pick(1_500) }
            let observer = self.observer
            subscription = Observable<Int>.create { subscriber in
                observer.publish(subscriber)
                return Disposables.create()
            }
            .observe(on: scheduler)
            .subscribe(
                onNext: { [unowned self] value in
                    // Before the last element only: the last one always
                    // arrives after the source emitted it and nothing more.
                    if value + 1 < ObserveOnDeliversEverything.elementCount && emitted.value <= value + 1 {
                        caughtUp.set()
                    }
                    received.withLock { $0.append(value) }
                },
                onCompleted: { [unowned self] in completed.set() })
        }
    }

    /// Creates the scenario for the registered scheduler.
    init(_ registration: StressScheduler) {
        super.init(
            registration, name: "observeOn-delivers-all.\(registration.name)", guarantees: "3",
            summary: "\(registration.name): a source emits from one thread while the scheduler drains; "
                + "every element and the completion arrive",
            explorationWorkers: 2)  // drains, each on a worker
    }

    func makeState(_ choices: inout IterationChoices) -> State {
        State(live, scheduler: scheduler.current.unsafelyUnwrapped.scheduler, choices: &choices)
    }

    func act(_ actor: Int, on state: State) {
        // One source, one emitting thread (events of one sequence never
        // overlap); the other actor has nothing to race with.
        guard actor == 0 else { return }
        let observer = state.observer.wait()
        for value in 0..<Self.elementCount {
            spinDelay(nanoseconds: state.emitGaps[value])
            observer.onNext(value)
            state.emitted.increment()
        }
        spinDelay(nanoseconds: state.emitGaps[Self.elementCount])
        observer.onCompleted()
    }

    func settle() {
        scheduler.settle()
    }

    func arbitrate(_ state: State) -> Outcome {
        defer {
            state.subscription?.dispose()
            state.subscription = nil
        }
        guard scheduler.settledInTime else { return .hung }
        let values = state.received.withLock { $0 }
        guard values == Array(0..<values.count) else { return .wrongOrder }
        guard values.count == Self.elementCount, state.completed.isSet else { return .stranded }
        return state.caughtUp.isSet ? .caughtUp : .batched
    }
}
