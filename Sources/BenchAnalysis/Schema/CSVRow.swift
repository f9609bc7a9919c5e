/// One row of the long-form CSV: the run's fixed columns plus one measured value.
public struct CSVRow: Sendable, Equatable {
    public var benchmark: String
    public var variant: String
    public var params: String
    public var metric: String
    public var unit: String
    public var repetition: Int
    /// `nil` when the value could not be measured (for example allocation
    /// counts without jemalloc): written as an empty field.
    public var value: Double?
    /// The allocator the value was measured under, when it is not the run's
    /// (the allocation counts of a default run come from a jemalloc child).
    public var allocator: String?

    public init(
        benchmark: String, variant: String, params: String, metric: String,
        unit: String, repetition: Int, value: Double?, allocator: String? = nil
    ) {
        self.benchmark = benchmark
        self.variant = variant
        self.params = params
        self.metric = metric
        self.unit = unit
        self.repetition = repetition
        self.value = value
        self.allocator = allocator
    }
}
