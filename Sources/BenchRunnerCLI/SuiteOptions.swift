import ArgumentParser
import BenchKit
import Foundation
import ToolSupport

/// Options that choose what a suite contains, shared by `run` and `list`.
struct SuiteOptions: ParsableArguments {
    @Flag(help: "Run the reduced suite (under two minutes; a CI smoke run) instead of the default one.")
    var quick = false

    @Option(
        name: .customLong("filter"),
        help: ArgumentHelp(
            "Only benchmarks whose 'benchmark/variant' <name> selects. Repeat or separate with commas.",
            discussion: NameFilter.ruleSummary + " Examples: observeOn.throughput, peer.nio, "
                + "observeOn.latency/fast-path. `\(BenchRunnerMain.programName) list` shows the names.",
            valueName: "name"))
    var filters: [String] = []

    @Option(
        help: ArgumentHelp(
            "Exactly this many repetitions of every variant (default: as many as each needs, or 7 with --quick).",
            discussion: """
                Without it the default suite gives each benchmark at least 3 repetitions (the trampoline 6, \
                periodic.drift exactly 3) and takes more (at most 30) while one of its series is wider than \
                compare needs to show it unchanged, until the benchmark's time budget (12 s of timed rounds) \
                is spent; a series still too wide then is named in the summary and has budget_reached=1 in \
                the CSV. observeOn.throughput always takes 30, in 5 processes.
                """,
            valueName: "count"))
    var repetitions: Int?

    @Option(
        help: ArgumentHelp(
            "The shortest a timing repetition may be, in milliseconds (default 50; 0 turns it off).",
            discussion: """
                A measurement shorter than this (a quick flood of 100,000 elements takes a few milliseconds) \
                runs again within the repetition until the time is spent, at most 25 times, and the repetition \
                reports the median of its runs, so one preemption does not decide it.
                """,
            valueName: "ms"))
    var minRepetitionMs: Double?

    @Option(
        help: ArgumentHelp(
            "Floods of each kind in a repetition of observeOn.busyQueue's flood series (default 30, or 5 in the default suite).",
            discussion: """
                The flood series time quiet floods, then as many right after a busy queue, and report their \
                medians and the worst flood; fewer floods make it faster and its worst flood a rougher figure. \
                The count is in the series' params (floods=<count>), so compare never judges runs of \
                different counts against each other.
                """,
            valueName: "count"))
    var floods: Int?

    @Option(
        help: ArgumentHelp(
            "How far the scale.* sweeps go: modest (default) or full (10^6 virtual-time actions, 10,000 timers, ...).",
            valueName: "modest|full"))
    var scale: ScaleExtent = .modest

    @Option(
        name: .customLong("scale-n"),
        help: ArgumentHelp(
            "Run every selected scale.* sweep at these N instead of its own, e.g. 1000,1e4,1e5.",
            discussion: "Each sweep refuses N above what memory allows and names its limit; docs/Scale.md lists them.",
            valueName: "list"))
    var scaleN: String?

    var patterns: [String] {
        filters.flatMap { $0.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) } }
    }

    func validate() throws {
        if let repetitions, !(1...1000).contains(repetitions) {
            throw ValidationError("--repetitions must be between 1 and 1000, got \(repetitions).")
        }
        if let minRepetitionMs, !minRepetitionMs.isFinite || !(0...10_000).contains(minRepetitionMs) {
            throw ValidationError("--min-repetition-ms must be between 0 and 10000 milliseconds, e.g. 50.")
        }
        if let floods, !(1...1000).contains(floods) {
            throw ValidationError("--floods must be between 1 and 1000, got \(floods).")
        }
        if let scaleN {
            do {
                try ScaleInput.check(
                    ScaleInput.parsePoints(scaleN), against: ScaleSweeps.limits(selectedBy: BenchmarkFilter(patterns)))
            } catch {
                throw ValidationError(error.description)
            }
        }
        if patterns.isEmpty && !filters.isEmpty {
            throw ValidationError("--filter needs a benchmark name; `\(BenchRunnerMain.programName) list` shows them.")
        }
    }

    func configuration(recursionProbe: PlainRecursionProbe?) -> SuiteConfiguration {
        var configuration = quick ? SuiteConfiguration.quick(recursionProbe: recursionProbe) : .standard(recursionProbe: recursionProbe)
        configuration.repetitionsOverride = repetitions
        configuration.scale = ScaleOptions(extent: scale, points: scaleN.flatMap { try? ScaleInput.parsePoints($0) })
        if let minRepetitionMs {
            configuration.minimumRepetitionSeconds = minRepetitionMs / 1000
        }
        configuration.floodsOverride = floods
        return configuration
    }
}

extension AllocatorChoice: ExpressibleByArgument {}
extension ScaleExtent: ExpressibleByArgument {}
