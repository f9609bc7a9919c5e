/// What `BenchRunner compare` pairs rows by: the same benchmark, variant,
/// parameters, metric and allocator on both sides.
public struct ResultSeriesKey: Hashable, Sendable, CustomStringConvertible {
    /// The `benchmark` column.
    public let benchmark: String
    /// The `variant` column.
    public let variant: String
    /// The `params` column (`key=value` pairs joined by `;`).
    public let params: String
    /// The `metric` column.
    public let metric: String
    /// Empty when the CSV has no `allocator` column.
    public let allocator: String

    /// The key of the rows with these column values.
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
