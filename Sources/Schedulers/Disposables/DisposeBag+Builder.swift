extension DisposeBag {
    /// Builds the list of disposables for `DisposeBag(builder:)` and
    /// `insert(builder:)`, so that several subscriptions can be listed one a
    /// line, as in RxSwift 6:
    ///
    /// ```swift
    /// bag.insert {
    ///     first
    ///     second
    /// }
    /// ```
    @resultBuilder
    public enum DisposableBuilder {
        /// Collects the listed disposables in order.
        public static func buildBlock(_ disposables: Disposable...) -> [Disposable] {
            disposables
        }
    }

    /// Creates a bag holding the disposables the builder lists.
    public convenience init(@DisposableBuilder builder: () -> [Disposable]) {
        self.init(disposing: builder())
    }

    /// Adds every disposable the builder lists.
    public func insert(@DisposableBuilder builder: () -> [Disposable]) {
        insert(builder())
    }
}
