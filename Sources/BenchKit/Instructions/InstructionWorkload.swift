/// What a plan's instruction count measures: a workload that runs
/// `operations` operations inside ``InstructionCountedRegion/measure(_:)``,
/// the one function callgrind collects in (see ``InstructionPass``).
///
/// Only work whose instructions are the same on every run can be counted
/// this way: CPU work on one thread (a trampoline chain, a subscription on
/// the current thread, elements through operators on a scheduler that does
/// not hop, virtual time). Work handed to another thread is not: how many
/// elements find a drain already scheduled depends on the interleaving.
package struct InstructionWorkload: Sendable {
    /// The metric the count per operation is written as (kind ``MetricKind/instructions``).
    let metric: Metric
    /// Operations inside the counted region: the count is divided by it.
    let operations: Int
    /// The `params` column of the instruction row: the workload's own size,
    /// the same in every suite, so a quick run's counts compare with a
    /// default run's.
    let params: String
    /// Warms up outside the region (first calls resolve symbols, fill
    /// metadata caches and grow queues), then runs exactly `operations`
    /// operations inside one call of the closure it is given, which is
    /// ``InstructionCountedRegion/measure(_:)``.
    let run: @Sendable (_ counted: (() -> Void) -> Void) throws -> Void

    init(
        metric: Metric, operations: Int, params: String? = nil, run: @escaping @Sendable (_ counted: (() -> Void) -> Void) throws -> Void
    ) {
        precondition(metric.kind == .instructions, "an instruction workload writes an instruction metric")
        precondition(operations > 0, "an instruction workload runs at least one operation")
        self.metric = metric
        self.operations = operations
        self.params = params ?? formatParams(["operations": String(operations)])
        self.run = run
    }
}

/// The region callgrind counts: `valgrind --tool=callgrind
/// --collect-atstart=no --toggle-collect=<symbol> --dump-after=<symbol>`
/// collects exactly while ``measure(_:)`` runs and writes one profile per
/// call, so each workload's count stands alone. Outside valgrind it only
/// calls its body.
package enum InstructionCountedRegion {
    /// Finds ``measure(_:)``'s mangled symbol in the binary's symbol table:
    /// it must match that function and no other (checked by every counted
    /// run, see `InstructionPass.regionSymbol(in:)`).
    static let symbolPattern = "*InstructionCountedRegion*measure*"

    /// Runs `body`: the counted region. Never inlined and not optimised, so
    /// that it stays one function callgrind can recognise (an optimised build
    /// adds a specialised copy whose name matches the pattern too, and ends
    /// in a tail call, which callgrind does not see as leaving the function).
    @inline(never) @_optimize(none)
    static func measure(_ body: () -> Void) {
        body()
    }
}
