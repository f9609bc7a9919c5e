/// What `BenchRunner compare` pairs rows by: the same benchmark, variant,
/// parameters, metric and allocator on both sides.
public struct ResultSeriesKey: Hashable, Sendable, CustomStringConvertible {
    public let benchmark: String
    public let variant: String
    public let params: String
    public let metric: String
    /// Empty when the CSV has no `allocator` column.
    public let allocator: String

    public init(benchmark: String, variant: String, params: String, metric: String, allocator: String) {
        self.benchmark = benchmark
        self.variant = variant
        self.params = params
        self.metric = metric
        self.allocator = allocator
    }

    /// `benchmark/variant params metric [allocator]`, for messages.
    public var description: String {
        var text = "\(benchmark)/\(variant)"
        if !params.isEmpty {
            text += " \(params)"
        }
        text += " \(metric)"
        if !allocator.isEmpty {
            text += " [\(allocator)]"
        }
        return text
    }
}
