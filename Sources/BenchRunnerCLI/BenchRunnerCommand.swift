import ArgumentParser

/// The root command. `BenchRunner` alone is `BenchRunner run`.
struct BenchRunnerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "BenchRunner",
        abstract: "Measures the Schedulers library against its peers and writes one CSV per run.",
        discussion: """
            `swift run -c release BenchRunner` runs the default suite (a few minutes on two cores), \
            shows progress, prints a summary with the ratios that matter and writes \
            results/<UTC time>-<git revision>.csv. Exit status: 0 success; 1 a measurement failed (the \
            other rows are written), compare found a regression or a --check (report, results index) found \
            something stale; 2 bad input; 3 compare could not \
            judge a gated series (compare --help).
            """,
        subcommands: [
            Run.self,
            List.self,
            Compare.self,
            Calibrate.self,
            History.self,
            ReportFigures.self,
            Export.self,
            Results.self,
            ProbeRecursion.self,
        ],
        defaultSubcommand: Run.self
    )
}
