import Schedulers

/// DisposeBag: its owner lets go of it (so it deinitialises) while another
/// thread, holding it weakly, inserts into it (guarantees 7 and 8 in Guarantees.md).
///
/// An insert that reached the bag is disposed by the bag's teardown, on
/// whichever thread dropped the last reference; a bag already gone is not
/// inserted into (the inserter disposes its member itself). Every member is
/// disposed exactly once and the bag is freed.
final class DisposeBagDeinitVersusInsert: ExplorableScenario, @unchecked Sendable {
    enum Outcome: String, ScenarioOutcome {
        case insertedThenDeinit = "inserted-then-deinit"
        case bagGoneBeforeInsert = "bag-gone-before-insert"
        case inserterHeldLastReference = "deinit-on-inserting-thread"
        case notExactlyOnce = "not-disposed-exactly-once"

        var grade: Grade {
            switch self {
            case .insertedThenDeinit, .bagGoneBeforeInsert: .acceptable
            case .inserterHeldLastReference: .interesting
            case .notExactlyOnce: .forbidden
            }
        }
        var meaning: String {
            switch self {
            case .insertedThenDeinit: "inserted in time; the owner's release ran deinit, which disposed it"
            case .bagGoneBeforeInsert: "the bag was gone; nothing was inserted"
            case .inserterHeldLastReference: "inserted while holding the last reference: deinit ran on the inserter"
            case .notExactlyOnce: "a member was disposed 0 or 2+ times (or the bag never deinitialised)"
            }
        }
    }

    final class State: ScenarioState, @unchecked Sendable {
        var bag: DisposeBag?
        weak var weakBag: DisposeBag?
        let existing: ProbeDisposable
        let inserted: ProbeDisposable
        let foundBag = Flag()

        init(_ live: LiveCounter, choices _: inout IterationChoices) {
            existing = ProbeDisposable(live)
            inserted = ProbeDisposable(live)
            let bag = DisposeBag()
            existing.disposed(by: bag)
            self.bag = bag
            weakBag = bag
        }
    }

    let name = "dispose-bag.deinit-vs-insert"
    let guarantees = "7, 8"
    let summary = "DisposeBag: deinit (owner drops it) races an insert through a weak reference"
    let actorCount = 2
    let live = LiveCounter()


    func act(_ actor: Int, on state: State) {
        if actor == 0 {
            state.bag = nil
        } else if let bag = state.weakBag {
            state.foundBag.set()
            state.inserted.disposed(by: bag)
        } else {
            state.inserted.dispose()
        }
    }

    func arbitrate(_ state: State) -> Outcome {
        guard state.existing.disposeCount == 1, state.inserted.disposeCount == 1 else {
            return .notExactlyOnce
        }
        if !state.foundBag.isSet {
            return .bagGoneBeforeInsert
        }
        return state.inserted.disposedBy == 1 ? .inserterHeldLastReference : .insertedThenDeinit
    }
}
