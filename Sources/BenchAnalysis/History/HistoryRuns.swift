import Foundation

/// The result files `history` reads, in the order it reads them: by the
/// repository's commit order, runs of one commit by their timestamps.
package struct HistoryRuns: Sendable {
    /// One run: its file and where it sits.
    struct Run: Sendable {
        init(file: ResultFile, revision: String, timestamp: String, commitPosition: Int?) {
            self.file = file
            self.revision = revision
            self.timestamp = timestamp
            self.commitPosition = commitPosition
        }

        /// The file as read.
        let file: ResultFile
        /// The revision the run measured (`git_rev`, else from the file's name).
        let revision: String
        /// When it was made (the `timestamp` column, else from the file's name).
        let timestamp: String
        /// The position of its commit in the commit order, nil when the
        /// revision is not in the history (or no history could be read).
        let commitPosition: Int?
    }

    /// Every run, oldest first.
    let runs: [Run]
    /// What the reader should know about the order, one line each (git
    /// missing, revisions not in the history).
    let notes: [String]

    /// `runs` in the order given, with `notes`.
    init(runs: [Run], notes: [String] = []) {
        self.runs = runs
        self.notes = notes
    }

    /// The result files among `paths`: a folder stands for the result files
    /// directly in it (`<UTC>-<revision>.csv`, not baselines or tables).
    static func files(in paths: [String]) throws(CompareInputError) -> [String] {
        var files: [String] = []
        for path in paths {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw CompareInputError(file: path, line: nil, message: "no such file or folder")
            }
            guard isDirectory.boolValue else {
                files.append(path)
                continue
            }
            let names: [String]
            do {
                names = try FileManager.default.contentsOfDirectory(atPath: path)
            } catch {
                throw CompareInputError(file: path, line: nil, message: "cannot be listed (check its permissions)")
            }
            let runs = names.filter(isRunFileName).sorted()
            guard !runs.isEmpty else {
                throw CompareInputError(
                    file: path, line: nil,
                    message: "holds no result file (<UTC time>-<revision>.csv, as BenchRunner writes them)")
            }
            let folder = path.hasSuffix("/") ? String(path.dropLast()) : path
            files.append(contentsOf: runs.map { "\(folder)/\($0)" })
        }
        return files
    }

    /// Whether `name` is a result file's name: `20261124T085214Z-de72c138d70c.csv`.
    static func isRunFileName(_ name: String) -> Bool {
        guard name.hasSuffix(".csv"), let dash = name.firstIndex(of: "-") else { return false }
        let stamp = name[..<dash]
        return stamp.count == 16 && stamp.hasSuffix("Z") && stamp.first?.isNumber == true
    }

    /// `files` in order. Without `order` (git or the repository missing,
    /// `unavailable` says why) the runs go by their timestamps, and a note
    /// says so once; when git is missing and `order` is the one an index
    /// records (`recordedIn` names it), the note says that instead. A run
    /// whose revision is not in `order` goes right after the latest run
    /// before it in time whose revision is.
    init(files: [ResultFile], order: CommitOrder?, unavailable: String? = nil, recordedIn: String? = nil) {
        var notes: [String] = []
        if order == nil {
            notes.append(
                "note: runs are ordered by their timestamps, not by commit order"
                    + (unavailable.map { " (\($0))" } ?? ""))
        } else if let recordedIn {
            notes.append(
                "note: runs are ordered by the commit order \(recordedIn) records, not by git's"
                    + (unavailable.map { " (\($0))" } ?? "") + "; a run it does not list goes by its timestamp")
        }
        let placed = files.map { file -> Run in
            let name = URL(fileURLWithPath: file.path).deletingPathExtension().lastPathComponent
            let nameParts = name.split(separator: "-", maxSplits: 1).map(String.init)
            let revision = file.revisions.first ?? (nameParts.count == 2 ? nameParts[1] : "")
            let timestamp = file.facts.timestamp.isEmpty ? Self.isoTimestamp(fromName: nameParts.first ?? "") : file.facts.timestamp
            return Run(file: file, revision: revision, timestamp: timestamp, commitPosition: order?.position(of: revision))
        }
        // Timestamps first, so that a run outside the history can take the
        // position of the latest run before it.
        let byTime = placed.sorted { ($0.timestamp, $0.file.path) < ($1.timestamp, $1.file.path) }
        var keyed: [(run: Run, position: Int, time: String)] = []
        var latest = -1
        var outside: Set<String> = []
        for run in byTime {
            if let position = run.commitPosition {
                latest = max(latest, position)
                keyed.append((run, position, run.timestamp))
            } else {
                if order != nil { outside.insert(run.revision) }
                keyed.append((run, order == nil ? 0 : latest, run.timestamp))
            }
        }
        if !outside.isEmpty {
            notes.append(
                "note: \(outside.count) revision(s) not in the history, placed by timestamp: "
                    + outside.sorted().joined(separator: ", "))
        }
        runs = keyed.sorted { ($0.position, $0.time, $0.run.file.path) < ($1.position, $1.time, $1.run.file.path) }
            .map(\.run)
        self.notes = notes
    }

    /// `2026-11-24T08:52:14Z` from a file name's `20261124T085214Z`.
    private static func isoTimestamp(fromName stamp: String) -> String {
        let digits = Array(stamp)
        guard digits.count == 16 else { return stamp }
        let text = String(digits)
        func part(_ from: Int, _ length: Int) -> Substring {
            let start = text.index(text.startIndex, offsetBy: from)
            return text[start..<text.index(start, offsetBy: length)]
        }
        return "\(part(0, 4))-\(part(4, 2))-\(part(6, 2))T\(part(9, 2)):\(part(11, 2)):\(part(13, 2))Z"
    }
}
