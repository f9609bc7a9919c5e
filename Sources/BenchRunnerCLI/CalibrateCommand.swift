import ArgumentParser
import BenchAnalysis
import Foundation
import ToolSupport

/// `BenchRunner calibrate RUN.csv...`: measures each timing series'
/// resolution on this machine from several runs of one binary
/// (``ResolutionTable``) and writes the table compare reads.
struct Calibrate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Measure the smallest change of each timing series two runs on this machine tell apart.",
        discussion: """
            Give four or more result CSVs of one binary, made as the runs you will compare are made \
            (the same suite, e.g. --quick, and --forks, on a machine as quiet), e.g. \
            `for i in 1 2 3 4 5 6; do swift run -c release BenchRunner --quick; done`. Runs of several \
            binaries or CPU models (four or more of each: say one binary's quick runs and another's default \
            runs, or one binary's runs on two hosts) are calibrated group by group into one table, a row per \
            series, binary and CPU model; compare judges two runs of one CPU model by that model's rows where \
            the series has one, and takes the row whose calibration runs had about as many repetitions of the \
            series as the runs it compares. \
            For each judged \
            timing series the spread of the runs' log medians, at its upper 90 % confidence bound, gives the \
            change that two runs exceed by chance with probability alpha/m (m calibrated series): its \
            resolution. compare calls a calibrated series worse or better only when its median also moved \
            beyond the larger of its threshold and its resolution, so two runs of one binary raise no false alarm, and prints the resolution it used. \
            Exit status: 0 written, 2 bad input (fewer than four runs of a revision or of a revision on a CPU model, a \
            missing or malformed file).
            """)

    @Argument(help: "Result CSVs: four or more of each binary (git revision) on each CPU model.")
    var runs: [String]

    @Option(help: "Where to write the table.")
    var output = Compare.defaultResolutionPath

    @Option(help: "The chance that any calibrated series of two runs of one binary moves beyond its resolution.")
    var alpha = 0.05

    func validate() throws {
        if !alpha.isFinite || alpha <= 0 || alpha >= 0.5 {
            throw ValidationError("--alpha must lie strictly between 0 and 0.5, e.g. --alpha 0.05")
        }
    }

    func run() throws {
        let table: ResolutionTable
        do {
            let files = try runs.map { path throws(CompareInputError) in try ResultFile.load(path: path) }
            table = try ResolutionTable.calibrate(runs: files, alpha: alpha, path: output)
        } catch {
            FileHandle.standardError.write(Data("error: \(error)\n".utf8))
            throw ExitCode(2)
        }
        do {
            try table.csv().write(toFile: output, atomically: true, encoding: .utf8)
        } catch {
            FileHandle.standardError.write(Data("error: \(output): cannot be written (\(error.localizedDescription))\n".utf8))
            throw ExitCode(2)
        }
        let resolutions = table.calibrated.values.joined().map(\.resolution).sorted()
        let median = resolutions[resolutions.count / 2]
        let sources = table.calibrations.map {
            "\($0.series) from \($0.runs) runs of git \($0.revision)\($0.cpu.isEmpty ? "" : " on \($0.cpu)") "
                + "(\($0.repetitions) repetitions a series, median)"
        }
        print("calibrated \(table.entries.count) series, " + sources.joined(separator: ", ") + ": resolution from "
            + "\(NumberFormat.percentage(resolutions.first ?? 0)) to \(NumberFormat.percentage(resolutions.last ?? 0)), "
            + "median \(NumberFormat.percentage(median))")
        for key in table.calibrated.keys.sorted(by: { $0.description < $1.description }) {
            for entry in table.calibrated[key] ?? [] {
                print("  \(key): \(NumberFormat.percentage(entry.resolution)) (git \(entry.revision)\(entry.cpu.isEmpty ? "" : " on \(entry.cpu)"), \(entry.repetitions) repetitions)")
            }
        }
        print("wrote \(output)")
    }
}
