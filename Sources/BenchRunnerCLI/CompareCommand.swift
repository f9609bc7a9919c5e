import ArgumentParser
import BenchKit
import Foundation

/// `BenchRunner compare BASE.csv NEW.csv`: tells a real change from noise
/// between two result files (README, "Comparing two runs"). Parsing only;
/// the comparison is ``CompareTool`` in BenchKit.
public struct Compare: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "compare",
        abstract: "Compare two BenchRunner result CSVs and say which changes are real.",
        discussion: """
            Rows are paired by benchmark, variant, params, metric and allocator. For each pair \
            the report shows the repetitions on each side, the two medians, the change of the \
            medians in %, a confidence interval of the change (Hodges-Lehmann at 1 - 2*alpha, so each \
            bound is a one-sided 1 - alpha bound; in % of the base median), p, q and a verdict. \
            Rates (*_per_s) and the trampoline depth are better higher; times, latencies, \
            lateness, drift, skipped ticks and allocations are better lower.

            A regression check asks whether a series got worse, so each timing series gets a \
            one-sided Mann-Whitney U test in the metric's harmful direction, of the new repetitions \
            against the base ones moved by the threshold (exact null distribution without ties): \
            3 against 3 repetitions, every new one worse than every base one by more than the \
            threshold, give p = 1/20 = 0.05. The false discovery rate across the run is controlled by \
            Benjamini-Hochberg: q is p adjusted across every tested series, and worse (or better) \
            needs q <= --alpha. So two runs of one revision do not raise false alarms although they \
            have a hundred series; the price is that a lone change among N series needs p <= alpha/N, \
            i.e. 7 repetitions a side for about a hundred series.

            Verdicts: worse / better (beyond the threshold, confirmed across the run); same (the \
            interval lies within +-threshold); ~ (not shown equal: neither is shown, and the median did \
            not move beyond the threshold in the harmful direction); better? (better on its own test, \
            not after the correction: a likely improvement, never a failure). Could not be judged: \
            "moved worse?" (the median moved beyond the threshold in the harmful direction, as measured \
            and after the drift correction, but no test confirmed it: a harmful move never passes), \
            "too few repetitions" (even non-overlapping repetitions could not reach --alpha: 2 against \
            3 at 0.05) and "worse?" (worse on its own test, not after the correction: more \
            repetitions must decide). The summary lists these series, with their spread, and says what \
            would judge them. It also gives each reference's spread, and reads a reference as the \
            limit only where its repetitions are tighter than the library's series beside it. Shown, not judged, by design: peers and references (they measure \
            the machine, and their common change is divided out of CPU-bound times), single-run \
            tails, per-tick samples, machine facts. Exact counts (allocs_*, bytes_*, depth, type_lookups_*) are \
            compared without a test: any change in the bad direction is worse, whatever the threshold, \
            unless --exact-tolerance allows it; instruction counts (instructions_*, counted by callgrind) \
            likewise, beyond 0.5 % of the base count. A metric this BenchRunner does not declare is shown, \
            not judged. Rows with an empty value (allocation counting \
            unavailable) are skipped. Series in only one file are listed as added or removed.

            Resolution: series move between runs of one binary by very different amounts (the serial hop \
            by a few per cent, a timer's lateness by tens), so a calibrated timing series is worse or better \
            only when its median also moved beyond the larger of its threshold and its resolution (the \
            tests ask about the threshold), the resolution being the smallest change two runs of one \
            binary on this machine exceed by chance with probability at most alpha for all series together \
            (BenchRunner calibrate, results/resolution.csv, read by default from the directory compare runs \
            in; --resolution none for the thresholds alone). The table's column threshold shows each \
            series' threshold, and the summary says which table was used.

            For CI on a shared machine, gate only on the exact counts and print the timings: \
            `BenchRunner compare --gate exact --exact-tolerance 'allocs_*=0.5' \
            results/baseline-quick.csv NEW.csv`. Exact counts are judged from one repetition, so \
            a baseline with fewer timing repetitions does not make this gate exit 3.

            Exit status: 0 every gated series judged, none worse and none moved beyond its threshold \
            in the harmful direction; 1 at least one regression \
            (a gated "worse"); 2 unusable input (missing file, not a CSV, missing columns, a \
            non-numeric value: the message names the file and line) or an option out of range; \
            3 no regression found but at least one gated series could not be judged ("too few \
            repetitions", "worse?" or "moved worse?"): not a pass, rerun with what the summary names.
            """
    )

    @Argument(help: "The baseline result CSV (e.g. results/baseline-quick.csv).")
    var base: String

    @Argument(help: "The new result CSV to judge against the baseline.")
    var new: String

    @Option(
        help: ArgumentHelp(
            "Smallest change in % that counts (default: 5): worse and better mean beyond it, same means the "
                + "confidence interval lies within it. Written 5 or 5%. Exact counts ignore it (see --exact-tolerance).",
            valueName: "percent"),
        transform: Compare.percentage)
    var threshold: Double?

    @Option(
        name: .customLong("wakeup-threshold"),
        help: ArgumentHelp(
            "The threshold in % for wake-up-bound times: hop latency, timer lateness and drift, delivery on the "
                + "main queue (default: 40). Between runs of the same code these move by up to 30 % on a shared "
                + "machine, every repetition agreeing. Never below --threshold.",
            valueName: "percent"),
        transform: Compare.percentage)
    var wakeUpThreshold: Double?

    @Option(
        help: ArgumentHelp(
            "Level of the one-sided tests and of the false discovery rate across the run (0 < alpha < 0.5); "
                + "the confidence interval is at 1 - 2*alpha."))
    var alpha: Double = 0.05

    @Option(
        help: ArgumentHelp(
            "Which metrics decide the exit status: 'all', or 'exact' for the exact counts only "
                + "(allocations, depth, instructions; timing changes are still printed): for CI on a shared machine.",
            valueName: "all|exact"))
    var gate: CompareOptions.Gate = .all

    @Option(
        help: ArgumentHelp(
            "Output: 'table' (aligned text), 'markdown' (for pull requests) or 'csv' (for scripts; "
                + "the summary then goes to standard error).",
            valueName: "table|markdown|csv"))
    var format: CompareOptions.Format = .table

    @Option(
        name: .customLong("exact-tolerance"),
        help: ArgumentHelp(
            "How far exact counts may move before they count as a change (default: none, any increase "
                + "is a regression): an amount for every exact metric, or metric=amount and prefix*=amount "
                + "pairs, comma-separated, e.g. allocs_*=0.5 (one more allocation per element still fails; "
                + "amortised one-off allocations do not).",
            valueName: "tolerances"),
        transform: Compare.exactTolerances)
    var exactTolerances: [ExactTolerance] = []

    @Option(
        help: ArgumentHelp(
            "A resolution table (BenchRunner calibrate): a calibrated timing series is worse or better only when "
                + "its median moved beyond the larger of its threshold and its resolution on the machine that wrote "
                + "the table. Default: "
                + "\(Compare.defaultResolutionPath) when it exists; 'none' for the thresholds alone.",
            valueName: "file|none"))
    var resolution: String?

    /// Where calibrate writes and compare looks for the resolution table by default.
    static let defaultResolutionPath = ResolutionTable.defaultPath

    public init() {}

    public func run() throws {
        var table: ResolutionTable?
        let path = resolution ?? Self.defaultResolutionPath
        if path != "none" && (resolution != nil || FileManager.default.fileExists(atPath: path)) {
            do {
                table = try ResolutionTable.load(path: path)
            } catch {
                FileHandle.standardError.write(Data("error: \(error)\n".utf8))
                throw ExitCode(CompareExitStatus.unusableInput.rawValue)
            }
        }
        let options = CompareOptions(
            threshold: (threshold ?? 5) / 100, wakeUpThreshold: (wakeUpThreshold ?? 40) / 100, alpha: alpha,
            gate: gate, format: format,
            exactTolerances: exactTolerances, resolution: table)
        let outcome = CompareTool.run(basePath: base, newPath: new, options: options)
        if !outcome.output.isEmpty {
            print(outcome.output, terminator: "")
        }
        if !outcome.diagnostics.isEmpty {
            FileHandle.standardError.write(Data(outcome.diagnostics.utf8))
        }
        if outcome.status != .noRegression {
            throw ExitCode(outcome.status.rawValue)
        }
    }

    /// Reads the `--exact-tolerance` list.
    static func exactTolerances(_ argument: String) throws -> [ExactTolerance] {
        switch ExactTolerance.parseList(argument) {
        case .success(let tolerances): return tolerances
        case .failure(let error): throw ValidationError(error.message)
        }
    }

    /// Reads `5` or `5%` as 5 (per cent).
    static func percentage(_ argument: String) throws -> Double {
        var text = argument.trimmingCharacters(in: .whitespaces)
        if text.hasSuffix("%") {
            text.removeLast()
        }
        guard let value = Double(text) else {
            throw ValidationError("a threshold is a percentage such as 5 or 5%, not '\(argument)'")
        }
        return value
    }
}

extension CompareOptions.Gate: ExpressibleByArgument {}
extension CompareOptions.Format: ExpressibleByArgument {}
