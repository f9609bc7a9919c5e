import ArgumentParser
import BenchAnalysis
import Foundation

/// `BenchRunner compare BASE.csv NEW.csv`: tells a real change from noise
/// between two result files. Parsing only; the comparison is ``CompareTool``
/// in BenchAnalysis, and docs/Compare.md explains it in full.
struct Compare: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compare",
        abstract: "Compare two BenchRunner result CSVs and say which changes are real.",
        usage: "\(BenchRunnerMain.programName) compare [<options>] <base> <new>",
        discussion: """
            Verdicts: worse, better, same, ~ (not shown equal), better?; not judged: worse?, \
            moved worse?, too few repetitions. docs/Compare.md explains them and every option.
            Exit status: 0 every gated series judged, none worse; 1 a regression; 2 unusable \
            input or option; 3 a gated series could not be judged: not a pass.
            """
    )

    @Argument(help: "The baseline result CSV.")
    var base: String

    @Argument(help: "The new result CSV.")
    var new: String

    @Option(
        help: ArgumentHelp(
            "Smallest change that counts, in % (default: 5).",
            valueName: "percent"),
        transform: Compare.percentage)
    var threshold: Double?

    @Option(
        name: .customLong("wakeup-threshold"),
        help: ArgumentHelp(
            "The threshold of wake-up-bound times (default: 40).",
            valueName: "percent"),
        transform: Compare.percentage)
    var wakeUpThreshold: Double?

    @Option(
        help: ArgumentHelp(
            "Level of the tests, below 0.5."))
    var alpha: Double = 0.05

    @Option(
        help: ArgumentHelp(
            "Gate on every metric, or on exact counts only.",
            valueName: "all|exact"))
    var gate: CompareOptions.Gate = .all

    @Option(
        help: ArgumentHelp(
            "How to write the report.",
            valueName: "table|markdown|csv"))
    var format: CompareOptions.Format = .table

    @Option(
        name: .customLong("exact-tolerance"),
        help: ArgumentHelp(
            "How far exact counts may move, e.g. allocs_*=0.5.",
            valueName: "tolerances"),
        transform: Compare.exactTolerances)
    var exactTolerances: [ExactTolerance] = []

    @Option(
        help: ArgumentHelp(
            "A calibrate table (default: \(Compare.defaultResolutionPath)).",
            valueName: "file|none"))
    var resolution: String?

    /// Where calibrate writes and compare looks for the resolution table by default.
    static let defaultResolutionPath = ResolutionTable.defaultPath

    init() {}

    func run() throws {
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
        try ToolOutput.finish(output: outcome.output, diagnostics: outcome.diagnostics, status: outcome.status.rawValue)
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
