extension ObservableType {
    /// A sequence that completes at once, with no element.
    public static func empty() -> Observable<Element> {
        TerminalObservable(.completed)
    }

    /// A sequence that fails at once with `error`.
    public static func error(_ error: Swift.Error) -> Observable<Element> {
        TerminalObservable(.error(error))
    }

    /// A sequence that never sends anything.
    public static func never() -> Observable<Element> {
        TerminalObservable(nil)
    }
}

/// Sends its terminal event, if it has one, to each observer at once on
/// subscription, and nothing else: `empty()` (completion), `error(_:)` (the
/// error) and `never()` (no event at all).
final class TerminalObservable<Element>: Observable<Element>, @unchecked Sendable {
    private let terminal: Event<Element>?

    /// `terminal`: `.completed`, `.error`, or `nil` for none.
    init(_ terminal: Event<Element>?) {
        self.terminal = terminal
    }

    override func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable
    where Observer.Element == Element {
        if let terminal {
            observer.on(terminal)
        }
        return Disposables.create()
    }
}
