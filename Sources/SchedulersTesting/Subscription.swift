/// When a test observable was subscribed to and when that subscription was
/// disposed, in virtual time, as RxTest has it. `unsubscribe` is `Int.max`
/// while the subscription lives.
public struct Subscription: Equatable, Hashable, CustomDebugStringConvertible, Sendable {
    /// When `subscribe` was called.
    public let subscribe: TestTime
    /// When the subscription was disposed, or `Int.max`.
    public let unsubscribe: TestTime

    /// A subscription made at `subscribe` and disposed at `unsubscribe`.
    public init(_ subscribe: TestTime, _ unsubscribe: TestTime = .max) {
        self.subscribe = subscribe
        self.unsubscribe = unsubscribe
    }

    /// `(subscribe : unsubscribe)`, with `Infinity` for a live one.
    public var debugDescription: String {
        let end = unsubscribe == .max ? "Infinity" : String(unsubscribe)
        return "(\(subscribe) : \(end))"
    }
}
