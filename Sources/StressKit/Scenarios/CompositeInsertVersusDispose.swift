import Schedulers

/// CompositeDisposable: two threads insert while a third disposes
/// (guarantee 7 in Guarantees.md).
///
/// An insert that returns a key was in time: the disposer disposes that
/// member. An insert that returns `nil` came too late: it disposed the new
/// member itself, at once. Every member, including one inserted before the
/// race, is disposed exactly once.
final class CompositeInsertVersusDispose: ExplorableScenario, @unchecked Sendable {
    enum Outcome: String, ScenarioOutcome {
        case bothInserted = "both-inserted-then-disposed"
        case oneInserted = "one-inserted-one-rejected"
        case bothRejected = "dispose-first-both-rejected"
        case notExactlyOnce = "not-disposed-exactly-once"
        case keyDisagrees = "insert-result-disagrees-with-disposer"
        case membersLeft = "members-left-after-dispose"

        var grade: Grade {
            switch self {
            case .bothInserted, .oneInserted, .bothRejected: .acceptable
            case .notExactlyOnce, .keyDisagrees, .membersLeft: .forbidden
            }
        }
        var meaning: String {
            switch self {
            case .bothInserted: "both inserts returned a key; dispose() disposed both"
            case .oneInserted: "one insert was in time, the other returned nil and disposed its member"
            case .bothRejected: "dispose() ran first; both inserts returned nil and disposed their member"
            case .notExactlyOnce: "some member was disposed 0 or 2+ times"
            case .keyDisagrees: "an insert returned a key but its member was not disposed by dispose(), or nil but it was"
            case .membersLeft: "count was not 0 after dispose() and both inserts returned"
            }
        }
    }

    final class State: ScenarioState, @unchecked Sendable {
        let composite = CompositeDisposable()
        let existing: ProbeDisposable
        let members: [ProbeDisposable]
        let gotKey = [Flag(), Flag()]

        init(_ live: LiveCounter, choices _: inout IterationChoices) {
            existing = ProbeDisposable(live)
            members = [ProbeDisposable(live), ProbeDisposable(live)]
            composite.insert(existing)
        }
    }

    let name = "composite.insert-vs-dispose"
    let guarantees = "7"
    let summary = "CompositeDisposable: two inserts race dispose(); every member is disposed exactly once"
    let actorCount = 3
    let live = LiveCounter()


    func act(_ actor: Int, on state: State) {
        if actor < 2 {
            if state.composite.insert(state.members[actor]) != nil {
                state.gotKey[actor].set()
            }
        } else {
            state.composite.dispose()
        }
    }

    func arbitrate(_ state: State) -> Outcome {
        guard ([state.existing] + state.members).allSatisfy({ $0.disposeCount == 1 }) else {
            return .notExactlyOnce
        }
        guard state.composite.count == 0 else { return .membersLeft }
        var inserted = 0
        for index in 0..<2 {
            let keyed = state.gotKey[index].isSet
            let byDisposer = state.members[index].disposedBy == 2
            guard keyed == byDisposer else { return .keyDisagrees }
            inserted += keyed ? 1 : 0
        }
        return [Outcome.bothRejected, .oneInserted, .bothInserted][inserted]
    }
}
