import ArgumentParser
import BenchAnalysis
import BenchKit
import Foundation

/// `BenchRunner results index [--check]` and `BenchRunner results prune
/// [--delete]`: the results folder's index and the files nothing cites,
/// moved aside on request. Parsing only; the work is ``ResultsIndexTool`` in
/// BenchAnalysis.
struct Results: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Index the results folder (results/README.md), or list and move aside the files nothing cites.",
        discussion: """
            Every file in results/ is what a real run wrote; results/README.md, written by \
            `results index`, says of each committed one what it is (default, quick, filtered, \
            instructions-only, scale sweep, calibration, baseline, plot), which revision wrote it and \
            which of the repository's text files cite it, and lists the committed runs in commit \
            order. A file git does not track is a run of your own: named, never indexed. Without git \
            (a source archive) the files the index lists are taken for the committed ones. \
            docs/Results.md explains the rules. Exit status: 0 done; 1 (index --check) the index is \
            stale; 2 bad input.
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
        abstract: "List the files in results/ that nothing uses; with --delete, move them aside.",
        discussion: """
            A file is kept when a text file of the repository names it (a folder: its path), when it \
            is a committed run (the history of the committed runs reads every one), a baseline \
            (baseline-*.csv) or the calibration table, and a plot when its run is kept; runs of your \
            own that nothing names are listed. Without --delete nothing is moved; with it, the files \
            go into results/.pruned-<UTC time>/ and the command that restores them is printed. \
            Exit status: 0 listed (or moved, and results/README.md rewritten); 2 bad input (no \
            results folder, a file that cannot be moved).
            """)

    @Flag(help: "Move the listed files into results/.pruned-<UTC time>/ and rewrite results/README.md.")
    var delete = false

    @OptionGroup var location: ResultsLocation

    func run() throws {
        try location.perform(.prune(delete: delete))
    }
}
