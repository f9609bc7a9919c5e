import Synchronization

/// Factory functions for the common disposables.
public enum Disposables {
    /// A disposable that does nothing when disposed. Allocates nothing, and
    /// costs no reference counting to return, keep or drop (an empty value,
    /// stored inline in the `Disposable` existential).
    @inlinable
    public static func create() -> Disposable {
        NopDisposable()
    }

    /// A disposable that runs `dispose` exactly once, on the first call to `dispose()`.
    ///
    /// - Parameter dispose: The action to run; it runs on the thread that
    ///   disposes first, and is released right after.
    public static func create(with dispose: @escaping () -> Void) -> Cancelable {
        AnonymousDisposable(dispose)
    }

    /// A disposable that disposes both `disposable1` and `disposable2`, each exactly once.
    public static func create(_ disposable1: Disposable, _ disposable2: Disposable) -> Cancelable {
        BinaryDisposable(disposable1, disposable2)
    }

    /// A disposable that disposes all three disposables, each exactly once.
    public static func create(
        _ disposable1: Disposable, _ disposable2: Disposable, _ disposable3: Disposable
    ) -> Cancelable {
        CompositeDisposable(disposable1, disposable2, disposable3)
    }

    /// A disposable that disposes all the listed disposables, each exactly once.
    public static func create(
        _ disposable1: Disposable, _ disposable2: Disposable, _ disposable3: Disposable,
        _ disposables: Disposable...
    ) -> Cancelable {
        CompositeDisposable(disposables: [disposable1, disposable2, disposable3] + disposables)
    }

    /// A disposable that disposes all of `disposables`, each exactly once.
    public static func create(_ disposables: [Disposable]) -> Cancelable {
        switch disposables.count {
        case 2:
            return BinaryDisposable(disposables[0], disposables[1])
        default:
            return CompositeDisposable(disposables: disposables)
        }
    }
}

/// The do-nothing disposable behind `Disposables.create()`: an empty value,
/// not a shared object, so that returning and dropping it (what every action
/// that needs no cleanup does) touches no reference count and no lazily
/// initialised global.
@usableFromInline
struct NopDisposable: Disposable, Sendable {
    @inlinable
    init() {}

    @inlinable
    func dispose() {}

    /// What `field` held, leaving a `NopDisposable` there: how a disposable
    /// that keeps others in plain existential fields lets them go.
    ///
    /// Plain, not optional, fields: every copy and destroy of an optional
    /// existential goes through the optional's value witnesses in
    /// unspecialised code (the payload's tag is asked of the existential's),
    /// about a hundred instructions each; a plain existential holding this
    /// struct costs a few, and no reference count.
    @inline(__always)
    static func take(_ field: inout Disposable) -> Disposable {
        var taken: Disposable = NopDisposable()
        swap(&taken, &field)
        return taken
    }
}

/// Runs a closure on the first `dispose()`, never again.
final class AnonymousDisposable: Cancelable, @unchecked Sendable {
    private let disposed = SyncAtomic<Bool>(false)
    // Written in init, then read and cleared only by the one caller that wins
    // the exchange on `disposed`: no lock needed.
    private var action: (() -> Void)?

    init(_ action: @escaping () -> Void) {
        self.action = action
    }

    var isDisposed: Bool {
        disposed.load(ordering: .acquiring)
    }

    func dispose() {
        guard !disposed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let action = self.action.take()
        action?()
    }
}

/// Disposes two disposables once.
final class BinaryDisposable: Cancelable, @unchecked Sendable {
    private let disposed = SyncAtomic<Bool>(false)
    // Read and cleared only by the single winner of the exchange on `disposed`,
    // with `NopDisposable.take`; one stored pair, so that is one run-time
    // exclusivity check, not one per field.
    private var members: DisposablePair

    init(_ first: Disposable, _ second: Disposable) {
        members = DisposablePair(first, second)
    }

    var isDisposed: Bool {
        disposed.load(ordering: .acquiring)
    }

    func dispose() {
        guard !disposed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let (first, second) = members.take()
        first.dispose()
        second.dispose()
    }
}

/// Two disposables kept in plain existential fields (see
/// `NopDisposable.take`), let go together: what `BinaryDisposable` and
/// `SinkDisposer` hold, as one stored value so that taking both is one
/// access to the owner's field.
struct DisposablePair {
    private var first: Disposable
    private var second: Disposable

    init(_ first: Disposable, _ second: Disposable) {
        self.first = first
        self.second = second
    }

    /// Stores both, in place of what was held (`NopDisposable`s).
    @inline(__always)
    mutating func store(_ first: Disposable, _ second: Disposable) {
        self.first = first
        self.second = second
    }

    /// Both disposables, leaving `NopDisposable`s in their place.
    @inline(__always)
    mutating func take() -> (Disposable, Disposable) {
        (NopDisposable.take(&first), NopDisposable.take(&second))
    }
}
