import ArgumentParser
import BenchAnalysis
import Foundation

/// `BenchRunner report [RUN.csv] [--check]`: the documentation's figures,
/// generated from a committed run. Parsing only; the work is ``ReportTool``
/// in BenchAnalysis.
struct ReportFigures: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Regenerate (or check) the figures in the documentation from committed result files.",
        discussion: """
            Rewrites every region between <!-- report:… --> and <!-- /report --> in README.md, \
            Performance.md, docs/*.md and the DocC catalogs (Sources/*/*.docc/*.md) from the run \
            each document names with <!-- report-source: results/<run>.csv -->. Given a result file, \
            every document that names a run is pointed at that one first. docs/BenchRunner.md \
            describes the directives. Exit status: 0 up to date, 1 (--check) a region is stale, \
            2 bad input (the message names the file and line).
            """)

    @Argument(help: ArgumentHelp("A committed result file to point every document at.", valueName: "results/<run>.csv"))
    var resultFile: String?

    @Flag(help: "Change nothing; exit 1 and name each region whose text differs from what its run gives.")
    var check = false

    @Option(help: ArgumentHelp("The repository's root.", valueName: "directory"))
    var root = "."

    func run() throws {
        let outcome = ReportTool.run(root: root, newSource: resultFile, check: check)
        try ToolOutput.finish(output: outcome.output, diagnostics: outcome.diagnostics, status: outcome.status)
    }
}
