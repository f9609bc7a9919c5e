/// A group of disposables disposed together.
///
/// Inserting into a disposed composite disposes the new member at once and
/// returns `nil`. Each member is disposed exactly once, outside the lock
/// (guarantee 7 in Guarantees.md).
public final class CompositeDisposable: Cancelable, @unchecked Sendable {
    /// Identifies a member so it can be removed.
    public struct DisposeKey: Hashable, Sendable {
        fileprivate let value: UInt64
    }

    private let lock = Lock()
    /// Guarded by `lock`. One stored value whose transitions are mutating
    /// methods, so each operation makes one run-time exclusivity check (one
    /// access to `state`), not one per field it reads or writes.
    private var state: State

    private struct State {
        var members: [(key: UInt64, disposable: Disposable)]
        var nextKey: UInt64
        var disposed = false

        init(_ members: [(key: UInt64, disposable: Disposable)]) {
            self.members = members
            nextKey = UInt64(members.count)
        }

        /// Adds `disposable` under a new key; `nil` when already disposed.
        mutating func insert(_ disposable: Disposable) -> UInt64? {
            if disposed {
                return nil
            }
            let key = nextKey
            nextKey &+= 1
            members.append((key, disposable))
            return key
        }

        /// Takes the member for `key` out, if it is still there.
        mutating func remove(for key: UInt64) -> Disposable? {
            guard let index = members.firstIndex(where: { $0.key == key }) else {
                return nil
            }
            return members.remove(at: index).disposable
        }

        /// Marks disposed; returns every member the first time.
        mutating func dispose() -> [(key: UInt64, disposable: Disposable)] {
            #if SCHEDULERS_MUTANTS
            if Mutant.active == .compositeDoubleDispose {
                disposed = true
                return members
            }
            #endif
            if disposed {
                return []
            }
            disposed = true
            let all = members
            members = []
            return all
        }
    }

    /// Creates an empty composite.
    public init() {
        state = State([])
    }

    /// Creates a composite holding the two disposables.
    public init(_ disposable1: Disposable, _ disposable2: Disposable) {
        state = State([(0, disposable1), (1, disposable2)])
    }

    /// Creates a composite holding the three disposables.
    public init(_ disposable1: Disposable, _ disposable2: Disposable, _ disposable3: Disposable) {
        state = State([(0, disposable1), (1, disposable2), (2, disposable3)])
    }

    /// Creates a composite holding four or more disposables, in order: the
    /// four named ones, then `disposables`. With RxSwift 6's other
    /// initialisers this makes `CompositeDisposable(d1, d2, …)` compile for
    /// any number of arguments from two.
    public init(
        _ disposable1: Disposable, _ disposable2: Disposable, _ disposable3: Disposable,
        _ disposable4: Disposable, _ disposables: Disposable...
    ) {
        var members: [(key: UInt64, disposable: Disposable)] = [
            (0, disposable1), (1, disposable2), (2, disposable3), (3, disposable4),
        ]
        members.reserveCapacity(4 + disposables.count)
        for (offset, disposable) in disposables.enumerated() {
            members.append((UInt64(4 + offset), disposable))
        }
        state = State(members)
    }

    /// Creates a composite holding all of `disposables`.
    public init(disposables: [Disposable]) {
        state = State(disposables.enumerated().map { (UInt64($0.offset), $0.element) })
    }

    /// Whether `dispose()` has been called.
    public var isDisposed: Bool {
        lock.withLock { state.disposed }
    }

    /// How many members are held (0 after disposal).
    public var count: Int {
        lock.withLock { state.members.count }
    }

    /// Adds a member.
    ///
    /// - Returns: A key for `remove(for:)`, or `nil` when the composite was
    ///   already disposed; the member has then been disposed.
    @discardableResult
    public func insert(_ disposable: Disposable) -> DisposeKey? {
        guard let key = lock.withLock({ state.insert(disposable) }) else {
            disposable.dispose()
            return nil
        }
        return DisposeKey(value: key)
    }

    /// Removes the member for `key` and disposes it. Does nothing if it is gone.
    public func remove(for disposeKey: DisposeKey) {
        let removed = lock.withLock { state.remove(for: disposeKey.value) }
        removed?.dispose()
    }

    /// Disposes every member, in insertion order.
    public func dispose() {
        let toDispose = lock.withLock { state.dispose() }
        for member in toDispose {
            member.disposable.dispose()
        }
    }
}
