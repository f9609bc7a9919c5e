import ArgumentParser
import BenchAnalysis
import Foundation

/// `BenchRunner export --format FORMAT RUN.csv`: one run as the JSON a
/// dashboard reads (Bencher, github-action-benchmark, JMH). Parsing only;
/// the work is ``ExportTool`` in BenchAnalysis.
struct Export: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write one result CSV as the JSON a benchmark dashboard reads.",
        usage: "BenchRunner export --format <format> <run> [--output <file>]",
        discussion: """
            Formats: bencher (Bencher Metric Format), custom-smaller-is-better and \
            custom-bigger-is-better (github-action-benchmark's customSmallerIsBetter and \
            customBiggerIsBetter tools: one direction each), jmh (JMH's JSON, as package-benchmark \
            writes it). Each series carries the median of its repetitions and their lowest and highest \
            value; informational metrics are left out. docs/Dashboards.md explains each mapping. \
            Exit status: 0 written; 2 bad input (a missing or malformed file, an unwritable --output, \
            an unknown format).
            """)

    @Option(help: ArgumentHelp("The format.", valueName: "bencher|custom-smaller-is-better|custom-bigger-is-better|jmh"))
    var format: ExportFormat

    @Argument(help: ArgumentHelp("The result CSV to export.", valueName: "run"))
    var resultFile: String

    @Option(help: ArgumentHelp("Write the JSON here instead of to standard output.", valueName: "file"))
    var output: String?

    func run() throws {
        let outcome = ExportTool.run(path: resultFile, format: format, outputPath: output)
        try ToolOutput.finish(output: outcome.output, diagnostics: outcome.diagnostics, status: outcome.status)
    }
}

extension ExportFormat: ExpressibleByArgument {}
