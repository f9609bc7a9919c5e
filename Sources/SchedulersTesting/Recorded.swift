import Schedulers

/// A value with the virtual time it was seen at, as RxTest has it.
///
/// Usually a `Recorded<Event<Element>>`: build them with `.next(210, 1)`,
/// `.completed(300)`, `.error(250, error)`.
public struct Recorded<Value>: CustomDebugStringConvertible {
    /// When the value was seen.
    public let time: TestTime
    /// The value.
    public let value: Value

    /// Records `value` at `time`.
    public init(time: TestTime, value: Value) {
        self.time = time
        self.value = value
    }

    /// `value @ time`.
    public var debugDescription: String {
        "\(value) @ \(time)"
    }
}

extension Recorded: Equatable where Value: Equatable {}

extension Recorded {
    /// The recorded events, in the order given: `Recorded.events(.next(210, 1),
    /// .completed(300))` is `[.next(210, 1), .completed(300)]` with its type
    /// (`[Recorded<Event<Int>>]`) inferred, as RxTest has it.
    public static func events<Element>(_ recordedEvents: Recorded<Event<Element>>...) -> [Recorded<Event<Element>>]
    where Value == Event<Element> {
        recordedEvents
    }

    /// The array form of `events(_:)`: `Recorded.events([.next(210, 1), .completed(300)])`.
    public static func events<Element>(_ recordedEvents: [Recorded<Event<Element>>]) -> [Recorded<Event<Element>>]
    where Value == Event<Element> {
        recordedEvents
    }
}

extension Recorded {
    /// `.next(element)` at `time`.
    public static func next<Element>(_ time: TestTime, _ element: Element) -> Recorded<Event<Element>>
    where Value == Event<Element> {
        Recorded(time: time, value: .next(element))
    }

    /// `.completed` at `time`.
    public static func completed<Element>(_ time: TestTime, _ type: Element.Type = Element.self) -> Recorded<Event<Element>>
    where Value == Event<Element> {
        Recorded(time: time, value: .completed)
    }

    /// `.error(error)` at `time`.
    public static func error<Element>(
        _ time: TestTime, _ error: Swift.Error, _ type: Element.Type = Element.self
    ) -> Recorded<Event<Element>> where Value == Event<Element> {
        Recorded(time: time, value: .error(error))
    }
}
