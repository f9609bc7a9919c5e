/// One notification of a sequence: an element, an error or completion.
///
/// A sequence follows the grammar `next* (error | completed)?`: any number of
/// elements, then at most one terminal event, then nothing
/// (guarantee 1 in Guarantees.md). Every sink of this library enforces it.
@frozen
public enum Event<Element> {
    /// The next element.
    case next(Element)
    /// The sequence failed; nothing follows.
    case error(Swift.Error)
    /// The sequence finished; nothing follows.
    case completed
}

extension Event {
    /// Whether this is `.error` or `.completed`.
    @inlinable
    public var isStopEvent: Bool {
        switch self {
        case .next: return false
        case .error, .completed: return true
        }
    }

    /// The element of a `.next` event, else `nil`.
    @inlinable
    public var element: Element? {
        if case .next(let value) = self {
            return value
        }
        return nil
    }

    /// The error of an `.error` event, else `nil`.
    @inlinable
    public var error: Swift.Error? {
        if case .error(let error) = self {
            return error
        }
        return nil
    }

    /// Whether this is `.completed`.
    @inlinable
    public var isCompleted: Bool {
        if case .completed = self {
            return true
        }
        return false
    }

    /// The event with its element transformed; errors thrown by `transform` become `.error`.
    public func map<Result>(_ transform: (Element) throws -> Result) -> Event<Result> {
        do {
            switch self {
            case .next(let element): return .next(try transform(element))
            case .error(let error): return .error(error)
            case .completed: return .completed
            }
        } catch {
            return .error(error)
        }
    }
}

extension Event: CustomDebugStringConvertible {
    /// A description such as `next(1)`, `error(...)` or `completed`.
    public var debugDescription: String {
        switch self {
        case .next(let value): return "next(\(value))"
        case .error(let error): return "error(\(error))"
        case .completed: return "completed"
        }
    }
}

extension Event: Sendable where Element: Sendable {}
