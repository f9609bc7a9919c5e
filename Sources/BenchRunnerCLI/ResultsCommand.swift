import ArgumentParser
import BenchAnalysis
import BenchKit
import Foundation

/// `BenchRunner results index [--check]` and `BenchRunner results prune
/// [--delete]`: the results folder's index and the removal of the files
/// nothing cites. Parsing only; the work is ``ResultsIndexTool`` in BenchAnalysis.
struct Results: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Index the results folder (results/README.md), or list and remove the files nothing cites.",
        discussion: """
            Every file in results/ is what a real run wrote; results/README.md, written by \
            `results index`, says what each one is (default, quick, filtered, instructions-only, scale \
            sweep, calibration, baseline, plot), which revision wrote it and which documents, tests, \
            scripts or CI steps cite it. docs/Results.md explains the rules. Exit status: 0 done; 1 \
            (index --check) the index is stale; 2 bad input.
            """,
        subcommands: [ResultsIndexCommand.self, ResultsPrune.self],
        defaultSubcommand: ResultsIndexCommand.self)
}

/// Where the repository and its results folder are, shared by the `results` subcommands.
struct ResultsLocation: ParsableArguments {
    @Option(help: ArgumentHelp("The repository's root.", valueName: "directory"))
    var root = "."

    @Option(help: ArgumentHelp("The results folder, from the root.", valueName: "folder"))
    var results = "results"

    func perform(_ action: ResultsIndexTool.Action) throws {
        let outcome = ResultsIndexTool.run(root: root, results: results, suites: try SuiteSignature.standardSuites(), action: action)
        try ToolOutput.finish(output: outcome.output, diagnostics: outcome.diagnostics, status: outcome.status)
    }
}

struct ResultsIndexCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "index",
        abstract: "Write (or check) results/README.md, the index of the results folder.",
        discussion: """
            Exit status: 0 written or up to date; 1 (--check) the index is stale (each file whose row \
            differs is named); 2 bad input (no results folder, an index that cannot be written).
            """)

    @Flag(help: "Change nothing; exit 1 and name each file whose row differs from what the folder gives.")
    var check = false

    @OptionGroup var location: ResultsLocation

    func run() throws {
        try location.perform(check ? .check : .write)
    }
}

struct ResultsPrune: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prune",
        abstract: "List the files in results/ that nothing cites; with --delete, remove them.",
        discussion: """
            A file is kept when a document, test, script or CI step names it, when it is a baseline \
            (baseline-*.csv) or the calibration table, and a plot when its run is kept. Without \
            --delete nothing is removed. Exit status: 0 listed (or removed, and results/README.md \
            rewritten); 2 bad input (no results folder, a file that cannot be removed).
            """)

    @Flag(help: "Remove the listed files and rewrite results/README.md.")
    var delete = false

    @OptionGroup var location: ResultsLocation

    func run() throws {
        try location.perform(.prune(delete: delete))
    }
}
