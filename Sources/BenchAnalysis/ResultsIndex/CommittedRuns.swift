import Foundation

/// The committed runs of a results folder (`<UTC time>-<revision>.csv`),
/// oldest first in the repository's commit order, runs of one commit by
/// their start time, each with the commit it measured: the list at the end
/// of the folder's index (`results/README.md`), which `results index`
/// writes from git and `results index --check` holds to git.
///
/// It is the one list through which the project reads its committed runs
/// by anything but their file name: the history of the committed runs
/// (CommittedHistoryTests, `report:history` regions, and
/// `scripts/history_reference.py`) reads exactly these runs in this order,
/// so a user's own runs in the folder change none of them, and they need
/// no git. Every run listed is therefore in use, and `results prune` never
/// lists one. Without git, `history` orders runs by this list.
package struct CommittedRuns: Sendable, Equatable {
    /// One committed run.
    struct Run: Sendable, Equatable {
        /// The file's name inside the results folder.
        let name: String
        /// The full hash of the commit its revision names; nil when the
        /// revision is not a commit of the history (the run is then placed
        /// by its start time, as `history` places it).
        let commit: String?

        /// The run `name` of `commit`.
        init(name: String, commit: String?) {
            self.name = name
            self.commit = commit
        }
    }

    /// The runs, oldest first.
    let runs: [Run]

    /// `runs`, oldest first.
    init(runs: [Run]) {
        self.runs = runs
    }

    /// The runs of `history` (ordered with `order`) as they are listed.
    init(history: HistoryRuns, order: CommitOrder) {
        runs = history.runs.map { run in
            Run(
                name: URL(fileURLWithPath: run.file.path).lastPathComponent,
                commit: run.commitPosition.map { order.commits[$0] })
        }
    }

    /// The names of the runs, oldest first.
    var names: [String] { runs.map(\.name) }

    /// The commits of the runs, oldest first, each once: the part of the
    /// repository's commit order the runs need.
    var commitOrder: CommitOrder {
        var seen: Set<String> = []
        var commits: [String] = []
        for case let commit? in runs.map(\.commit) where seen.insert(commit).inserted {
            commits.append(commit)
        }
        return CommitOrder(commits: commits)
    }

    // MARK: In the index

    /// The line that opens the list in the index.
    static let opening = "<!-- committed-runs: <file> <commit>, oldest first; written by `results index` -->"
    /// The line that closes it.
    static let closing = "<!-- /committed-runs -->"

    /// The list as the index writes it: one `<file> <commit>` line per run
    /// (`-` for a revision outside the history), between two markers.
    var markdown: String {
        var text = Self.opening + "\n```text\n"
        for run in runs {
            text += "\(run.name) \(run.commit ?? "-")\n"
        }
        return text + "```\n" + Self.closing + "\n"
    }

    /// The list in an index's text; nil when the text has none (an index
    /// older than the list, or no index).
    static func parse(index text: String) -> CommittedRuns? {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(where: { $0 == opening }) else { return nil }
        var runs: [Run] = []
        for line in lines[(start + 1)...] {
            if line == closing { return CommittedRuns(runs: runs) }
            let fields = line.split(separator: " ")
            guard fields.count == 2 else { continue }
            runs.append(Run(name: String(fields[0]), commit: fields[1] == "-" ? nil : String(fields[1])))
        }
        return nil
    }

    /// The list in the index of the folder at `folder`; nil when the folder
    /// has no index or the index no list.
    static func read(folder: String) -> CommittedRuns? {
        let index = URL(fileURLWithPath: folder).appendingPathComponent(ResultsIndex.fileName)
        guard let text = try? String(contentsOf: index, encoding: .utf8) else { return nil }
        return parse(index: text)
    }

    /// The runs listed, read from `folder` by `load` (which takes a file's
    /// path), in the list's order: the runs made at `until` (a file name's
    /// `yyyyMMddTHHmmssZ`) or before when it is given, every run otherwise.
    func history<Failure: Error>(
        folder: String, until: String? = nil, load: (String) throws(Failure) -> ResultFile
    ) throws(Failure) -> HistoryRuns {
        let folderPath = folder.hasSuffix("/") ? String(folder.dropLast()) : folder
        var files: [ResultFile] = []
        for name in names where until.map({ name <= $0 + "~" }) ?? true {
            files.append(try load("\(folderPath)/\(name)"))
        }
        return HistoryRuns(files: files, order: commitOrder)
    }
}
