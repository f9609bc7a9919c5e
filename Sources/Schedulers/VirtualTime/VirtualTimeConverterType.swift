import Foundation

/// Translates between a virtual-time scheduler's own units and real time.
///
/// A `VirtualTimeScheduler` keeps its clock in `VirtualTimeUnit` and its
/// offsets in `VirtualTimeIntervalUnit`; the converter is the only thing that
/// knows how these map to `Date` and to seconds. Conversions should round
/// consistently so that converting an interval there and back is stable:
/// virtual-time tests compare exact clock values.
///
/// The scheduler calls the comparison and offset methods while it holds its
/// own lock (ordering its queue and moving its clock): they must be pure
/// computations on their arguments and never call back into the scheduler.
public protocol VirtualTimeConverterType {
    /// The type of a point in virtual time.
    associatedtype VirtualTimeUnit
    /// The type of a span of virtual time.
    associatedtype VirtualTimeIntervalUnit

    /// The real time that `virtualTime` stands for.
    func convertFromVirtualTime(_ virtualTime: VirtualTimeUnit) -> RxTime

    /// The virtual time that stands for `time`.
    func convertToVirtualTime(_ time: RxTime) -> VirtualTimeUnit

    /// The span, in seconds, that `virtualTimeInterval` stands for.
    func convertFromVirtualTimeInterval(_ virtualTimeInterval: VirtualTimeIntervalUnit) -> TimeInterval

    /// The virtual span that stands for `timeInterval` seconds.
    func convertToVirtualTimeInterval(_ timeInterval: TimeInterval) -> VirtualTimeIntervalUnit

    /// `time` moved by `offset`.
    func offsetVirtualTime(_ time: VirtualTimeUnit, offset: VirtualTimeIntervalUnit) -> VirtualTimeUnit

    /// How `lhs` compares with `rhs`.
    func compareVirtualTime(_ lhs: VirtualTimeUnit, _ rhs: VirtualTimeUnit) -> VirtualTimeComparison
}
