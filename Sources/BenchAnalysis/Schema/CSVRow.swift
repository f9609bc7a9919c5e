/// One row of the long-form CSV: the run's fixed columns plus one measured value.
package struct CSVRow: Sendable, Equatable {
    /// The `benchmark` column.
    package var benchmark: String
    /// The `variant` column (``VariantID/name``).
    package var variant: String
    /// The `params` column: `key=value` pairs joined by ``CSVSchema/paramsSeparator``.
    package var params: String
    /// The `metric` column (``Metric/name``).
    package var metric: String
    /// The `unit` column (``Metric/unit``).
    package var unit: String
    /// The `repetition` column, from 1.
    package var repetition: Int
    /// `nil` when the value could not be measured (for example allocation
    /// counts without jemalloc): written as an empty field.
    package var value: Double?
    /// The allocator the value was measured under, when it is not the run's
    /// (the allocation counts of a default run come from a jemalloc child).
    package var allocator: String?

    /// A row with these columns; `allocator` nil for the run's own.
    package init(
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
