import ArgumentParser

/// The root command. `BenchRunner` alone is `BenchRunner run`. Its name is
/// the program's (``BenchRunnerMain/programName``), read once, after the
/// entry point installed it.
struct BenchRunnerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: BenchRunnerMain.programName,
        abstract: "Measures the Schedulers library against its peers and writes one CSV per run.",
        discussion: """
            `\(BenchRunnerMain.programName)` with no subcommand runs the default suite (a few minutes on two \
            cores), shows progress, prints a summary with the ratios that matter and writes \
            results/<UTC time>-<git revision>.csv. Exit status, of every subcommand: 0 success; 1 a measurement \
            failed (the other rows are written), compare found a regression, history a harmful change point at \
            the newest run, or a --check (report, results index) something stale; 2 bad input (an unknown \
            option or value, a file that cannot be read, a --filter that matches nothing, a refused \
            registration); 3 compare could not judge a gated series, or history a move at the newest run \
            (compare --help, history --help).
            """,
        subcommands: [
            Run.self,
            List.self,
            Compare.self,
            Calibrate.self,
            SelfCheck.self,
            History.self,
            ReportFigures.self,
            Export.self,
            Results.self,
            ProbeRecursion.self,
        ],
        defaultSubcommand: Run.self
    )
}
