import Foundation

/// The core of `BenchRunner results`: writes or checks the results folder's
/// index (``ResultsIndex``), and lists or moves aside the files nothing cites.
///
/// Every action names the folder's files that are not committed (a user's
/// own runs, never in the index), and says once when git is not there and
/// what stands in for it.
///
/// Exit status: 0 done (index written or up to date; uncited files listed
/// or moved); 1 `--check` found the index stale (it names the files whose
/// row differs); 2 unusable input (no results folder, an index that cannot
/// be written or a file that cannot be moved).
package enum ResultsIndexTool {
    package enum Action: Sendable, Equatable {
        /// Write the index.
        case write
        /// Change nothing; exit 1 when the index differs from what the folder gives.
        case check
        /// List the files nothing cites; with `delete`, move them into a
        /// folder `.pruned-<UTC time>` of the results folder, say how to
        /// restore them, and rewrite the index.
        case prune(delete: Bool)
    }

    package struct Outcome: Sendable {
        package let status: Int32
        /// What was written, found stale, listed or removed, for standard output.
        package let output: String
        /// Errors, for standard error.
        package let diagnostics: String
    }

    /// Runs `action` on the folder `results` (a path from `root`), reading
    /// each run's kind against `suites`; `git` is the program run as git
    /// (a test stands in a missing one), `now` names a prune's folder.
    package static func run(
        root: String, results: String, suites: [SuiteSignature], action: Action, git: String = "git",
        now: Date = Date()
    ) -> Outcome {
        let rootURL = URL(fileURLWithPath: root).standardizedFileURL
        let indexPath = "\(results)/\(ResultsIndex.fileName)"
        let indexURL = rootURL.appendingPathComponent(indexPath)
        do throws(ResultsIndexError) {
            var index = try ResultsIndex(root: rootURL, results: results, suites: suites, git: git)
            let notes = notes(on: index, results: results)
            switch action {
            case .write:
                let written = try write(index, to: indexURL, indexPath: indexPath, results: results)
                return Outcome(status: 0, output: notes + written.output, diagnostics: "")
            case .check:
                let expected = index.markdown(results: results)
                let current = (try? String(contentsOf: indexURL, encoding: .utf8)) ?? ""
                if current == expected {
                    return Outcome(
                        status: 0, output: notes + "\(indexPath) is up to date (\(index.entries.count) files).\n",
                        diagnostics: "")
                }
                return Outcome(
                    status: 1, output: notes + staleReport(current: current, expected: expected, indexPath: indexPath),
                    diagnostics: "")
            case .prune(let delete):
                let uncited = index.uncited
                let own = Set(index.ownEntries.map(\.name))
                func line(_ entry: ResultsEntry) -> String {
                    "\(results)/\(entry.name)  (\(entry.kind)\(own.contains(entry.name) ? ", not committed" : ""))\n"
                }
                guard delete else {
                    var output = notes + uncited.map(line).joined()
                    output += "\(uncited.count) of \(index.entries.count + own.count) files in \(results)/ are cited "
                        + "by nothing and are neither a committed run, a baseline nor the calibration table. "
                        + "Nothing was moved: `BenchRunner results prune --delete` moves them into "
                        + "\(results)/.pruned-<UTC time>/ and rewrites \(indexPath).\n"
                    return Outcome(status: 0, output: output, diagnostics: "")
                }
                guard !uncited.isEmpty else {
                    return Outcome(status: 0, output: notes + "Nothing in \(results)/ can go; nothing was moved.\n", diagnostics: "")
                }
                let aside = try asideFolder(rootURL.appendingPathComponent(results), now: now)
                var output = notes
                for entry in uncited {
                    do {
                        try FileManager.default.moveItem(
                            at: rootURL.appendingPathComponent("\(results)/\(entry.name)"),
                            to: aside.appendingPathComponent(entry.name))
                    } catch {
                        throw ResultsIndexError(
                            "\(results)/\(entry.name): cannot be moved into \(results)/\(aside.lastPathComponent)/ "
                                + "(\(error.localizedDescription)); what was moved before it is there")
                    }
                    output += "moved \(results)/\(entry.name) into \(results)/\(aside.lastPathComponent)/\n"
                }
                index = try ResultsIndex(root: rootURL, results: results, suites: suites, git: git)
                let written = try write(index, to: indexURL, indexPath: indexPath, results: results)
                let there = root == "." ? "" : "cd \(root) && "
                let folder = "\(results)/\(aside.lastPathComponent)"
                output += written.output
                output += "To restore them: \(there)mv \(folder)/* \(results)/ && rmdir \(folder) "
                    + "&& swift run BenchRunner results index\n"
                return Outcome(status: 0, output: output, diagnostics: "")
            }
        } catch {
            return Outcome(status: 2, output: "", diagnostics: "error: \(error)\n")
        }
    }

    /// What the reader should know before the action's own output: git
    /// missing (once), and the files that are not committed.
    private static func notes(on index: ResultsIndex, results: String) -> String {
        var notes = ""
        if let reason = index.gitUnavailable {
            notes += "note: git cannot say what is committed (\(reason)): the files \(results)/\(ResultsIndex.fileName) "
                + "lists are taken for the committed ones, in the commit order it records.\n"
        }
        if !index.ownEntries.isEmpty {
            notes += "note: \(index.ownEntries.count) file(s) in \(results)/ are not committed (your own runs), "
                + "so not in the index: " + index.ownEntries.map(\.name).joined(separator: ", ") + "\n"
        }
        return notes
    }

    /// A new folder `.pruned-<UTC time>` in `folder` (a number follows when
    /// one of that name is there).
    private static func asideFolder(_ folder: URL, now: Date) throws(ResultsIndexError) -> URL {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        let stamp = formatter.string(from: now)
        var candidate = folder.appendingPathComponent(".pruned-\(stamp)")
        var number = 1
        while FileManager.default.fileExists(atPath: candidate.path) {
            number += 1
            candidate = folder.appendingPathComponent(".pruned-\(stamp)-\(number)")
        }
        do {
            try FileManager.default.createDirectory(at: candidate, withIntermediateDirectories: false)
        } catch {
            throw ResultsIndexError(
                "\(folder.lastPathComponent)/\(candidate.lastPathComponent): cannot be made (\(error.localizedDescription))")
        }
        return candidate
    }

    private static func write(
        _ index: ResultsIndex, to url: URL, indexPath: String, results: String
    ) throws(ResultsIndexError) -> Outcome {
        do {
            try index.markdown(results: results).write(to: url, atomically: true, encoding: .utf8)
        } catch {
            throw ResultsIndexError("\(indexPath): cannot be written (\(error.localizedDescription))")
        }
        return Outcome(status: 0, output: "wrote \(indexPath) (\(index.entries.count) files).\n", diagnostics: "")
    }

    /// Names the files whose row differs between the index on disk and the
    /// one the folder gives (or says the header differs).
    static func staleReport(current: String, expected: String, indexPath: String) -> String {
        let currentRows = rows(current)
        let expectedRows = rows(expected)
        var output = ""
        for (name, row) in expectedRows.sorted(by: { $0.key < $1.key }) where currentRows[name] != row {
            output += currentRows[name] == nil
                ? "\(indexPath): stale: \(name) is not listed\n" : "\(indexPath): stale: the row of \(name) differs\n"
        }
        for name in currentRows.keys.sorted() where expectedRows[name] == nil {
            output += "\(indexPath): stale: \(name) is listed but not in the folder\n"
        }
        if output.isEmpty, CommittedRuns.parse(index: current) != CommittedRuns.parse(index: expected) {
            output = "\(indexPath): stale: the list of committed runs in commit order differs\n"
        }
        if output.isEmpty {
            output = current.isEmpty ? "\(indexPath): missing\n" : "\(indexPath): stale: the text around the table differs\n"
        }
        return output + "Run `swift run BenchRunner results index` and commit \(indexPath).\n"
    }

    /// The table's rows by file name.
    static func rows(_ text: String) -> [String: String] {
        var rows: [String: String] = [:]
        for line in text.split(separator: "\n") where line.hasPrefix("| `") {
            let fields = line.split(separator: "|", omittingEmptySubsequences: true)
            guard let first = fields.first else { continue }
            rows[first.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "`"))] = String(line)
        }
        return rows
    }
}
