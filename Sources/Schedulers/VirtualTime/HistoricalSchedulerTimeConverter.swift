import Foundation

/// Virtual time as `Date`, intervals as seconds: the converter of `HistoricalScheduler`.
public struct HistoricalSchedulerTimeConverter: VirtualTimeConverterType, Sendable {
    /// A point in time is a `Date`.
    public typealias VirtualTimeUnit = RxTime
    /// A span is a number of seconds.
    public typealias VirtualTimeIntervalUnit = TimeInterval

    /// Creates the converter.
    @inlinable
    public init() {}

    /// The date itself.
    @inlinable
    public func convertFromVirtualTime(_ virtualTime: VirtualTimeUnit) -> RxTime {
        virtualTime
    }

    /// The date itself.
    @inlinable
    public func convertToVirtualTime(_ time: RxTime) -> VirtualTimeUnit {
        time
    }

    /// The seconds themselves.
    @inlinable
    public func convertFromVirtualTimeInterval(_ virtualTimeInterval: VirtualTimeIntervalUnit) -> TimeInterval {
        virtualTimeInterval
    }

    /// The seconds themselves.
    @inlinable
    public func convertToVirtualTimeInterval(_ timeInterval: TimeInterval) -> VirtualTimeIntervalUnit {
        timeInterval
    }

    /// `time` plus `offset` seconds.
    @inlinable
    public func offsetVirtualTime(_ time: VirtualTimeUnit, offset: VirtualTimeIntervalUnit) -> VirtualTimeUnit {
        time.addingTimeInterval(offset)
    }

    /// Compares the two dates.
    @inlinable
    public func compareVirtualTime(_ lhs: VirtualTimeUnit, _ rhs: VirtualTimeUnit) -> VirtualTimeComparison {
        if lhs < rhs { return .lessThan }
        if lhs > rhs { return .greaterThan }
        return .equal
    }
}
