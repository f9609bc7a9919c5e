import ArgumentParser
import BenchAnalysis
import Foundation

/// `BenchRunner history [FOLDER|FILE …]`: every run remembered, each series'
/// change points found. Parsing only; the work is ``HistoryTool`` in
/// BenchAnalysis, and docs/History.md explains it in full.
struct History: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "Find where each series changed across the committed runs, revision by revision.",
        usage: "BenchRunner history [<options>] [<folder-or-file> ...]",
        discussion: """
            Orders runs by git's commit order (timestamps where a revision is not in it), keeps \
            machines apart, and segments each series: exact counts change where they move beyond \
            their tolerance, timings where binary segmentation and a rank test find a move beyond \
            the threshold and the series' noise. docs/History.md explains the method.
            Exit status: 0 no gated series changed for the worse at the newest run; 1 one did \
            (an exact count, or a confirmed timing); 2 unusable input or option; 3 a timing moved \
            for the worse at the newest run with too few runs to test: not a pass.
            """
    )

    @Argument(help: ArgumentHelp("Result files or folders of them (default: results).", valueName: "folder-or-file"))
    var paths: [String] = []

    @Option(
        name: .customLong("filter"),
        help: ArgumentHelp("Only series whose name contains one of these, e.g. trampoline,busyQueue.", valueName: "texts"))
    var filter: String?

    @Option(help: ArgumentHelp("Only runs whose machine (host, cpu, cores) contains this.", valueName: "text"))
    var machine: String?

    @Option(
        help: ArgumentHelp("Smallest change of a timing that counts, in % (default: 5).", valueName: "percent"),
        transform: Compare.percentage)
    var threshold: Double?

    @Option(
        name: .customLong("wakeup-threshold"),
        help: ArgumentHelp("The threshold of wake-up-bound times (default: 40).", valueName: "percent"),
        transform: Compare.percentage)
    var wakeUpThreshold: Double?

    @Option(help: ArgumentHelp("Level of each change point's test, below 0.5."))
    var alpha: Double = 0.05

    @Option(
        name: .customLong("exact-tolerance"),
        help: ArgumentHelp("How far exact counts may move, e.g. allocs_*=0.5.", valueName: "tolerances"),
        transform: Compare.exactTolerances)
    var exactTolerances: [ExactTolerance] = []

    @Option(help: ArgumentHelp("How to write the report.", valueName: "table|csv|json"))
    var format: HistoryOptions.Format = .table

    @Option(help: ArgumentHelp("The git repository whose commit order orders the runs.", valueName: "directory"))
    var repository = "."

    @Option(help: ArgumentHelp("Also write a static page (index.html, its data, plotly.js) there.", valueName: "directory"))
    var html: String?

    @Option(help: ArgumentHelp("A Stress --csv file whose outcome tables the page shows.", valueName: "file"))
    var stress: String?

    @Option(
        name: .customLong("plotly-js"),
        help: ArgumentHelp("plotly.min.js for the page (default: plotly's Python package's).", valueName: "path"))
    var plotlyJS: String?

    func run() throws {
        var options = HistoryOptions()
        options.judgement = CompareOptions(
            threshold: (threshold ?? 5) / 100, wakeUpThreshold: (wakeUpThreshold ?? 40) / 100, alpha: alpha,
            exactTolerances: exactTolerances)
        options.format = format
        options.filters = (filter ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
        options.machine = machine
        options.repository = repository
        options.htmlDirectory = html
        options.plotlyJS = plotlyJS
        options.stressCSV = stress
        let outcome = HistoryTool.run(paths: paths.isEmpty ? ["results"] : paths, options: options)
        try ToolOutput.finish(output: outcome.output, diagnostics: outcome.diagnostics, status: outcome.status.rawValue)
    }
}

extension HistoryOptions.Format: ExpressibleByArgument {}
