/// Collects disposables and disposes them all when it is deallocated.
///
/// The usual way to tie subscriptions to an owner's lifetime:
/// `subscription.disposed(by: bag)`. Inserting after the bag has begun its
/// teardown disposes the new member at once. Each member is disposed exactly
/// once (guarantee 7 in Guarantees.md).
public final class DisposeBag: @unchecked Sendable {
    private let lock = Lock()
    /// Guarded by `lock`. One stored value whose transitions are mutating
    /// methods, so each operation makes one run-time exclusivity check.
    private var state = State()

    private struct State {
        var members: [Disposable] = []
        var disposed = false

        /// Keeps `disposable`; returns whether it must be disposed at once
        /// instead (the bag is torn down).
        mutating func insert(_ disposable: Disposable) -> Bool {
            if disposed {
                return true
            }
            members.append(disposable)
            return false
        }

        /// Marks the bag torn down; returns its members.
        mutating func tearDown() -> [Disposable] {
            disposed = true
            let all = members
            members = []
            return all
        }
    }

    /// Creates an empty bag.
    public init() {}

    /// Creates a bag holding `disposables`.
    public convenience init(disposing disposables: Disposable...) {
        self.init()
        state.members = disposables
    }

    /// Creates a bag holding `disposables`.
    public convenience init(disposing disposables: [Disposable]) {
        self.init()
        state.members = disposables
    }

    /// Adds a disposable, disposed when the bag is deallocated.
    public func insert(_ disposable: Disposable) {
        #if SCHEDULERS_MUTANTS
        if Mutant.active == .disposeBagCheckThenAct {
            if lock.withLock({ state.disposed }) {
                disposable.dispose()
            } else {
                lock.withLock { state.members.append(disposable) }
            }
            return
        }
        #endif
        let disposeNow = lock.withLock { state.insert(disposable) }
        if disposeNow {
            disposable.dispose()
        }
    }

    /// Adds several disposables.
    public func insert(_ disposables: Disposable...) {
        insert(disposables)
    }

    /// Adds several disposables.
    public func insert(_ disposables: [Disposable]) {
        for disposable in disposables {
            insert(disposable)
        }
    }

    /// Tears the bag down: disposes every member, and from then on every new
    /// member at once. `deinit` calls it; internal so tests can reach the
    /// torn-down state while still holding the bag.
    func disposeAll() {
        let toDispose = lock.withLock { state.tearDown() }
        for disposable in toDispose {
            disposable.dispose()
        }
    }

    deinit {
        disposeAll()
    }
}
