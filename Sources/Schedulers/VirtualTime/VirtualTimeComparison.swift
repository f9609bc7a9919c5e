/// How two virtual times compare, as a `VirtualTimeConverterType` reports it.
public enum VirtualTimeComparison: Sendable {
    /// The left time is before the right one.
    case lessThan
    /// Both times are the same.
    case equal
    /// The left time is after the right one.
    case greaterThan
}

extension VirtualTimeComparison {
    @usableFromInline
    var lessThan: Bool { self == .lessThan }

    @usableFromInline
    var greaterThan: Bool { self == .greaterThan }
}
