import Schedulers

/// Every disposable kind of the library, disposed by three threads at once
/// (guarantee 7 in Guarantees.md).
///
/// Each iteration picks a kind (seeded): `Disposables.create(with:)`, the
/// two- and three-member and array forms, `SerialDisposable`,
/// `SingleAssignmentDisposable`, `CompositeDisposable`, `ScheduledDisposable`
/// on `CurrentThreadScheduler`. Each underlying resource is disposed exactly
/// once, by whichever thread won; the others return having done nothing.
final class ConcurrentDisposeExactlyOnce: ExplorableScenario, @unchecked Sendable {
    enum Outcome: String, ScenarioOutcome {
        case actor0Won = "actor-0-disposed"
        case actor1Won = "actor-1-disposed"
        case actor2Won = "actor-2-disposed"
        case notExactlyOnce = "not-disposed-exactly-once"
        case splitAcrossThreads = "members-disposed-by-several-threads"
        case notMarkedDisposed = "isDisposed-false-after-dispose"

        var grade: Grade {
            switch self {
            case .actor0Won, .actor1Won, .actor2Won: .acceptable
            case .splitAcrossThreads: .interesting
            case .notExactlyOnce, .notMarkedDisposed: .forbidden
            }
        }
        var meaning: String {
            switch self {
            case .actor0Won, .actor1Won, .actor2Won: "that actor's dispose() released every resource; the others did nothing"
            case .splitAcrossThreads: "members were released by different threads (allowed: still once each)"
            case .notExactlyOnce: "some resource was disposed 0 or 2+ times"
            case .notMarkedDisposed: "isDisposed was false right after dispose() returned"
            }
        }
    }

    /// The kinds, in the order `choices.pick` indexes them.
    static let kinds = [
        "anonymous", "binary", "ternary", "array", "serial", "single-assignment", "composite", "scheduled",
    ]

    final class State: @unchecked Sendable {
        let subject: Disposable
        let resources: [ProbeDisposable]
        let notMarked = Flag()

        init(kind: Int, live: LiveCounter) {
            let probes = (0..<3).map { _ in ProbeDisposable(live) }
            switch kind {
            case 0:
                let probe = probes[0]
                let token = LiveToken(live)
                subject = Disposables.create {
                    withExtendedLifetime(token) { probe.dispose() }
                }
                resources = [probe]
            case 1:
                subject = Disposables.create(probes[0], probes[1])
                resources = [probes[0], probes[1]]
            case 2:
                subject = Disposables.create(probes[0], probes[1], probes[2])
                resources = probes
            case 3:
                subject = Disposables.create(probes)
                resources = probes
            case 4:
                let serial = SerialDisposable()
                serial.disposable = probes[0]
                subject = serial
                resources = [probes[0]]
            case 5:
                let single = SingleAssignmentDisposable()
                single.setDisposable(probes[0])
                subject = single
                resources = [probes[0]]
            case 6:
                let composite = CompositeDisposable()
                for probe in probes {
                    composite.insert(probe)
                }
                subject = composite
                resources = probes
            default:
                subject = ScheduledDisposable(scheduler: CurrentThreadScheduler.instance, disposable: probes[0])
                resources = [probes[0]]
            }
        }
    }

    let name = "exactly-once.concurrent-dispose"
    let guarantees = "7"
    let summary = "Every disposable kind (seeded choice per iteration) disposed by 3 threads at once: each resource exactly once"
    let actorCount = 3
    let live = LiveCounter()

    func makeState(_ choices: inout IterationChoices) -> State {
        State(kind: choices.pick(Self.kinds.count), live: live)
    }

    func act(_ actor: Int, on state: State) {
        state.subject.dispose()
        if let cancelable = state.subject as? Cancelable, !cancelable.isDisposed {
            state.notMarked.set()
        }
    }

    func arbitrate(_ state: State) -> Outcome {
        guard state.resources.allSatisfy({ $0.disposeCount == 1 }) else { return .notExactlyOnce }
        guard !state.notMarked.isSet else { return .notMarkedDisposed }
        let disposers = Set(state.resources.map(\.disposedBy))
        guard disposers.count == 1, let winner = disposers.first, (0..<3).contains(winner) else {
            return .splitAcrossThreads
        }
        return [Outcome.actor0Won, .actor1Won, .actor2Won][winner]
    }
}
