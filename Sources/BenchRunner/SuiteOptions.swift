import ArgumentParser
import BenchKit
import Foundation

/// Options that choose what a suite contains, shared by `run` and `list`.
struct SuiteOptions: ParsableArguments {
    @Flag(help: "Run the reduced suite (about a minute; a CI smoke run) instead of the default one (about five minutes).")
    var quick = false

    @Option(
        name: .customLong("filter"),
        help: ArgumentHelp(
            "Only benchmarks whose name is <name>, or whose 'benchmark/variant' contains it. Repeat or separate with commas.",
            discussion: "Examples: observeOn.throughput, peer.nio, observeOn.latency/fast-path. `BenchRunner list` shows the names.",
            valueName: "name"))
    var filters: [String] = []

    @Option(help: ArgumentHelp("Repetitions of every variant (default: 5, or 7 with --quick).", valueName: "count"))
    var repetitions: Int?

    var patterns: [String] {
        filters.flatMap { $0.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) } }
    }

    func validate() throws {
        if let repetitions, !(1...1000).contains(repetitions) {
            throw ValidationError("--repetitions must be between 1 and 1000, got \(repetitions).")
        }
        if patterns.isEmpty && !filters.isEmpty {
            throw ValidationError("--filter needs a benchmark name; `BenchRunner list` shows them.")
        }
    }

    func configuration(recursionProbe: PlainRecursionProbe?) -> SuiteConfiguration {
        var configuration = quick ? SuiteConfiguration.quick(recursionProbe: recursionProbe) : .standard(recursionProbe: recursionProbe)
        configuration.repetitionsOverride = repetitions
        return configuration
    }
}

extension AllocatorChoice: ExpressibleByArgument {}
