import Foundation

/// The core of `BenchRunner history [FOLDER|FILE …]`: reads the result
/// files, orders them, finds every series' change points and formats the
/// report. The command-line type only parses options and prints what this
/// returns (docs/History.md explains the method and the output).
package enum HistoryTool {
    /// What `history` prints and the exit status it ends with.
    package struct Outcome: Sendable {
        /// The exit status.
        package let status: HistoryExitStatus
        /// What goes to standard output.
        package let output: String
        /// What goes to standard error.
        package let diagnostics: String
    }

    /// Analyses the result files in `paths` (folders stand for the result
    /// files in them) under `options`. Unusable input yields exit status 2
    /// and a message naming the file and line; nothing is analysed then.
    package static func run(paths: [String], options: HistoryOptions) -> Outcome {
        if let problem = options.judgement.problem {
            return Outcome(status: .unusableInput, output: "", diagnostics: "error: \(problem)\n")
        }
        let files: [ResultFile]
        do {
            files = try HistoryRuns.files(in: paths).map { path throws(CompareInputError) in
                try ResultFile.load(path: path)
            }
        } catch {
            return Outcome(status: .unusableInput, output: "", diagnostics: "error: \(error)\n")
        }
        let runs = order(files, repository: options.repository)
        let report = HistoryReport(runs: runs, options: options)
        if report.entries.isEmpty {
            let reason = options.filters.isEmpty && options.machine == nil
                ? "no judged series in these files"
                : "no judged series matches --filter/--machine"
            return Outcome(status: .unusableInput, output: "", diagnostics: "error: \(reason)\n")
        }
        var written = ""
        if let directory = options.htmlDirectory {
            do {
                written = try HistoryPageWriter.write(
                    report: report, runs: runs, options: options, directory: directory)
            } catch {
                return Outcome(status: .unusableInput, output: "", diagnostics: "error: \(error)\n")
            }
        }
        let formatter = HistoryFormatter(report: report, alpha: options.alpha)
        if !written.isEmpty {
            return Outcome(status: report.exitStatus, output: written, diagnostics: formatter.summary())
        }
        switch options.format {
        case .table:
            return Outcome(status: report.exitStatus, output: formatter.table(), diagnostics: "")
        case .csv:
            return Outcome(status: report.exitStatus, output: formatter.csv(), diagnostics: formatter.summary())
        case .json:
            return Outcome(status: report.exitStatus, output: formatter.json(), diagnostics: formatter.summary())
        }
    }

    /// `files` in the commit order of the git repository at `repository`
    /// (`git` is the program run as git). Without git (not installed, not a
    /// repository: a source archive) they go by the commit order the index
    /// of their folder records (``CommittedRuns``), else by their
    /// timestamps; either way one note says so.
    static func order(_ files: [ResultFile], repository: String, git: String = "git") -> HistoryRuns {
        switch CommitOrder.read(repository: repository, git: git) {
        case .success(let order):
            return HistoryRuns(files: files, order: order)
        case .failure(let problem):
            var folders: [String] = []
            for file in files {
                let folder = URL(fileURLWithPath: file.path).deletingLastPathComponent().path
                if !folders.contains(folder) { folders.append(folder) }
            }
            for folder in folders {
                if let recorded = CommittedRuns.read(folder: folder) {
                    return HistoryRuns(
                        files: files, order: recorded.commitOrder, unavailable: problem.reason,
                        recordedIn: "\(folder)/\(ResultsIndex.fileName)")
                }
            }
            return HistoryRuns(files: files, order: nil, unavailable: problem.reason)
        }
    }
}
