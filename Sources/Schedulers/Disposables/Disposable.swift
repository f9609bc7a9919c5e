/// A resource that can be released: a subscription, a scheduled action, a timer.
///
/// Every disposable of this library releases what it holds exactly once,
/// whichever thread calls `dispose()` and however often (guarantee 7 in Guarantees.md).
public protocol Disposable {
    /// Releases the resource. Calling it again, from any thread, does nothing.
    func dispose()
}

/// A disposable that can tell whether it has been disposed.
public protocol Cancelable: Disposable {
    /// Whether `dispose()` has been called.
    var isDisposed: Bool { get }
}

extension Disposable {
    /// Adds `self` to `bag`, so it is disposed when the bag is deallocated.
    public func disposed(by bag: DisposeBag) {
        bag.insert(self)
    }
}
