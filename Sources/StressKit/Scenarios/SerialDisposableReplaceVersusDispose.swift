import Schedulers

/// SerialDisposable: two threads replace the held disposable while a third
/// disposes it (guarantee 7 in Guarantees.md).
///
/// Whatever the order, each of the three disposables (the initial one and the
/// two replacements) is disposed exactly once; the disposer disposes exactly
/// the one that was current when it ran; the others are disposed by the
/// replacing thread (the replaced one, or the new one when the serial
/// disposable was already disposed).
final class SerialDisposableReplaceVersusDispose: ExplorableScenario, @unchecked Sendable {
    enum Outcome: String, ScenarioOutcome {
        case disposerTookInitial = "dispose-took-initial"
        case disposerTookFirst = "dispose-took-replacement-a"
        case disposerTookSecond = "dispose-took-replacement-b"
        case notExactlyOnce = "not-disposed-exactly-once"
        case disposerTookNoneOrSeveral = "dispose-took-none-or-several"
        case notMarkedDisposed = "isDisposed-false-after-dispose"

        var grade: Grade {
            switch self {
            case .disposerTookInitial, .disposerTookFirst, .disposerTookSecond: .acceptable
            case .notExactlyOnce, .disposerTookNoneOrSeveral, .notMarkedDisposed: .forbidden
            }
        }
        var meaning: String {
            switch self {
            case .disposerTookInitial: "dispose ran first; both replacements were disposed on assignment"
            case .disposerTookFirst: "dispose disposed replacement a, the current one"
            case .disposerTookSecond: "dispose disposed replacement b, the current one"
            case .notExactlyOnce: "some disposable was disposed 0 or 2+ times"
            case .disposerTookNoneOrSeveral: "the disposing thread disposed no disposable, or several"
            case .notMarkedDisposed: "isDisposed was false right after dispose() returned"
            }
        }
    }

    final class State: ScenarioState, @unchecked Sendable {
        let serial = SerialDisposable()
        let initial: ProbeDisposable
        let first: ProbeDisposable
        let second: ProbeDisposable
        let markedDisposed = Flag()

        init(_ live: LiveCounter, choices _: inout IterationChoices) {
            initial = ProbeDisposable(live)
            first = ProbeDisposable(live)
            second = ProbeDisposable(live)
            serial.disposable = initial
        }
    }

    let name = "serial-disposable.replace-vs-dispose"
    let guarantees = "7"
    let summary = "SerialDisposable: two replacements race dispose(); each disposable is disposed exactly once"
    let actorCount = 3
    let live = LiveCounter()


    func act(_ actor: Int, on state: State) {
        switch actor {
        case 0: state.serial.disposable = state.first
        case 1: state.serial.disposable = state.second
        default:
            state.serial.dispose()
            if state.serial.isDisposed {
                state.markedDisposed.set()
            }
        }
    }

    func arbitrate(_ state: State) -> Outcome {
        let probes = [state.initial, state.first, state.second]
        guard probes.allSatisfy({ $0.disposeCount == 1 }) else { return .notExactlyOnce }
        guard state.markedDisposed.isSet else { return .notMarkedDisposed }
        let takenByDisposer = probes.indices.filter { probes[$0].disposedBy == 2 }
        guard takenByDisposer.count == 1 else { return .disposerTookNoneOrSeveral }
        return [Outcome.disposerTookInitial, .disposerTookFirst, .disposerTookSecond][takenByDisposer[0]]
    }
}
