/// Which way a metric improves.
package enum MetricDirection: String, Sendable {
    /// A rise is an improvement (rates, the trampoline depth).
    case higherIsBetter = "higher"
    /// A fall is an improvement (times, allocations, lateness).
    case lowerIsBetter = "lower"
    /// Describes the machine or the run rather than the code (no verdict).
    case informational = "none"
}

/// What kind of value a metric is, which decides how `BenchRunner compare`
/// judges it (``MetricComparisonRule``) and which pass of a run measures it.
/// Its polarity is the metric's ``Metric/direction``.
package enum MetricKind: String, Sendable, Hashable, CaseIterable {
    /// A value that varies between repetitions (a CPU-bound time, a rate, how
    /// far the stack grew, skipped ticks): judged by the rank tests against
    /// `--threshold`.
    case measured
    /// A time set by thread wake-ups and timer expiry (hop latency, a tick's
    /// lateness) rather than by instructions. The kernel's scheduling of a
    /// shared machine moves such a median between runs of the same code, with
    /// every repetition of a run agreeing, by more than a CPU-bound time
    /// moves: judged against `--wakeup-threshold`.
    case wakeUpBound
    /// The tail of one run's distribution (latency and lateness p99 and
    /// beyond, the worst tick): set by a handful of preemptions on a shared
    /// machine, it swings 2-5x between runs of the same code. Shown with its
    /// change, not judged.
    case singleRunTail
    /// Allocations per operation, counted by jemalloc in the counting pass:
    /// exact, so compared without a test (see the type comment of `CSVSchema`).
    case allocations
    /// Bytes allocated per operation (jemalloc size classes), from the
    /// counting pass: exact like ``allocations``.
    case allocatedBytes
    /// A count the timing run itself makes, the same on every run (the depth
    /// the trampoline is driven to): exact.
    case exactCount
    /// Instructions per operation, counted by callgrind in the instruction
    /// pass (``InstructionPass``): the same on every run within
    /// ``instructionTolerance``, so compared without a test.
    case instructions
    /// Describes the machine or the run rather than the code (the plain
    /// recursion limit, per-tick samples): shown, never judged.
    case informational

    /// How far an instruction count per operation may move, as a fraction of
    /// the base count, and still be `same`: 0.5 %. What still varies between
    /// runs of one binary (the dynamic loader, libc's and the runtime's
    /// one-off work, hash seeds of dictionaries the workload touches) moves
    /// a counted series by far less (docs/InstructionCounts.md has the A/A
    /// figures), while a change worth gating (one more exclusivity check per
    /// level of a trampoline chain, about +2 %) moves it by much more.
    static let instructionTolerance = 0.005

    /// Compared exactly, without a test: the same code gives the same value
    /// (allocation counts, depth, instruction counts).
    var isExact: Bool {
        switch self {
        case .allocations, .allocatedBytes, .exactCount, .instructions: true
        case .measured, .wakeUpBound, .singleRunTail, .informational: false
        }
    }

    /// Measured by the allocation-counting pass rather than by the timing repetitions.
    var isAllocationCount: Bool {
        self == .allocations || self == .allocatedBytes
    }
}

/// One metric a benchmark records: its name in the CSV `metric` column, its
/// unit, its kind (``MetricKind``) and its polarity (which way it improves).
///
/// Every metric BenchRunner writes is one of the constants below; benchmarks
/// record values through them (``MetricValue``), ``CSVSchema`` lists them per
/// benchmark and `compare` judges a result file's rows by their kind and
/// polarity, never by their name. The names are part of the CSV interface:
/// add metrics, never rename one.
package struct Metric: Sendable, Hashable {
    /// The `metric` column's value.
    package let name: String
    /// The `unit` column's value.
    package let unit: String
    /// The polarity: which way the metric improves (`informational` for none).
    package let direction: MetricDirection
    /// What kind of value it is: decides how `compare` judges it and which
    /// pass of a run measures it.
    package let kind: MetricKind
    /// For an exact metric: how far (in its unit) it may move between two
    /// runs and still be `same` (``tolerating(_:)``). 0 allows no move at all.
    private(set) var exactTolerance: Double = 0

    /// A metric written as `name` in `unit`, of `kind`, improving in `direction`.
    package init(_ name: String, unit: String, kind: MetricKind, direction: MetricDirection) {
        self.name = name
        self.unit = unit
        self.kind = kind
        self.direction = direction
    }

    /// This metric, `same` in `compare` when it is exact and moved by at
    /// most `amount` (in its unit); say why in the metric's comment.
    package func tolerating(_ amount: Double) -> Metric {
        var copy = self
        copy.exactTolerance = amount
        return copy
    }

    /// `true` for counts that do not vary between runs of the same code
    /// (``MetricKind/isExact``): compared without a test, so they can gate CI.
    package var isExactCount: Bool { kind.isExact }
    /// See ``MetricKind/singleRunTail``.
    var isSingleRunTail: Bool { kind == .singleRunTail }
    /// See ``MetricKind/wakeUpBound``.
    var isWakeUpBound: Bool { kind == .wakeUpBound }
    /// Measured by the allocation-counting pass rather than by the timing
    /// repetitions (``MetricKind/allocations``, ``MetricKind/allocatedBytes``).
    package var isAllocationCount: Bool { kind.isAllocationCount }
    /// Counted by the instruction pass (``MetricKind/instructions``).
    package var isInstructionCount: Bool { kind == .instructions }
}
