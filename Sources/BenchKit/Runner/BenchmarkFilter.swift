import ToolSupport

/// Selects plans by name: a pattern matches a plan when it selects its
/// `benchmark/variant` by the rule both tools share (``NameFilter``: the whole
/// name, or whole words starting a dot- or slash-separated part), e.g.
/// `observeOn`, `observeOn.latency`, `peer.nio`, `observeOn.throughput/fast-path`,
/// `event-loop` (not `broken-loop`).
package struct BenchmarkFilter: Sendable, Equatable {
    let patterns: [String]

    package init(_ patterns: [String]) {
        self.patterns = patterns.filter { !$0.isEmpty }
    }

    package func matches(_ plan: MeasurementPlan) -> Bool {
        patterns.isEmpty || patterns.contains { Self.pattern($0, matches: plan.benchmark, variant: plan.variant) }
    }

    static func pattern(_ pattern: String, matches benchmark: String, variant: String) -> Bool {
        pattern == benchmark || NameFilter.text(pattern, selects: "\(benchmark)/\(variant)")
    }

    /// The plans the filter keeps; throws naming every pattern that matched nothing.
    func select(_ plans: [MeasurementPlan]) throws -> [MeasurementPlan] {
        let unmatched = patterns.filter { pattern in
            !plans.contains { Self.pattern(pattern, matches: $0.benchmark, variant: $0.variant) }
        }
        guard unmatched.isEmpty else {
            throw BenchmarkFilterError.noMatch(patterns: unmatched, available: Self.names(of: plans))
        }
        return plans.filter(matches)
    }

    static func names(of plans: [MeasurementPlan]) -> [String] {
        var seen = Set<String>()
        return plans.map(\.identifier).filter { seen.insert($0).inserted }
    }
}

/// A filter pattern matched no benchmark.
package enum BenchmarkFilterError: Error, CustomStringConvertible, Equatable {
    case noMatch(patterns: [String], available: [String])

    package var description: String {
        switch self {
        case let .noMatch(patterns, available):
            let quoted = patterns.map { "'\($0)'" }.joined(separator: ", ")
            let program = ToolInvocation.programName(fallback: "BenchRunner")
            return "--filter \(quoted) matches no benchmark. Known names (see `\(program) list`):\n  "
                + available.joined(separator: "\n  ")
        }
    }
}
