import Foundation
import Schedulers

/// Virtual time as whole ticks of `resolution` seconds: the converter of `TestScheduler`.
///
/// Conversions to ticks round to the nearest tick (halves up), so an interval
/// converted to ticks and back is stable and test expectations stay exact.
public struct TestSchedulerVirtualTimeConverter: VirtualTimeConverterType, Sendable {
    /// A point in time is a tick count.
    public typealias VirtualTimeUnit = Int
    /// A span is a tick count.
    public typealias VirtualTimeIntervalUnit = Int

    /// Seconds per tick.
    public let resolution: Double

    /// Creates a converter with `resolution` seconds per tick.
    ///
    /// - Precondition: `resolution` is positive and finite.
    public init(resolution: Double) {
        precondition(
            resolution > 0 && resolution.isFinite,
            "resolution must be positive and finite, got \(resolution)"
        )
        self.resolution = resolution
    }

    /// The date `virtualTime · resolution` seconds after 1970.
    @inlinable
    public func convertFromVirtualTime(_ virtualTime: VirtualTimeUnit) -> RxTime {
        Date(timeIntervalSince1970: TimeInterval(virtualTime) * resolution)
    }

    /// The nearest tick to `time`.
    public func convertToVirtualTime(_ time: RxTime) -> VirtualTimeUnit {
        ticks(time.timeIntervalSince1970)
    }

    /// `virtualTimeInterval · resolution` seconds.
    @inlinable
    public func convertFromVirtualTimeInterval(_ virtualTimeInterval: VirtualTimeIntervalUnit) -> TimeInterval {
        TimeInterval(virtualTimeInterval) * resolution
    }

    /// The nearest whole number of ticks to `timeInterval` seconds.
    public func convertToVirtualTimeInterval(_ timeInterval: TimeInterval) -> VirtualTimeIntervalUnit {
        ticks(timeInterval)
    }

    /// `time + offset`, saturating.
    @inlinable
    public func offsetVirtualTime(_ time: VirtualTimeUnit, offset: VirtualTimeIntervalUnit) -> VirtualTimeUnit {
        let (sum, overflow) = time.addingReportingOverflow(offset)
        guard overflow else { return sum }
        return offset > 0 ? .max : .min
    }

    /// Compares the two tick counts.
    @inlinable
    public func compareVirtualTime(_ lhs: VirtualTimeUnit, _ rhs: VirtualTimeUnit) -> VirtualTimeComparison {
        if lhs < rhs { return .lessThan }
        if lhs > rhs { return .greaterThan }
        return .equal
    }

    /// `seconds / resolution` rounded half up, clamped to `Int`.
    private func ticks(_ seconds: TimeInterval) -> Int {
        let ticks = (seconds / resolution + 0.5).rounded(.down)
        if ticks.isNaN { return 0 }
        if ticks >= 9_223_372_036_854_775_807.0 { return .max }
        if ticks <= -9_223_372_036_854_775_808.0 { return .min }
        return Int(ticks)
    }
}
