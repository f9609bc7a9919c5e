import Foundation

/// The core of `BenchRunner results`: writes or checks the results folder's
/// index (``ResultsIndex``), and lists or removes the files nothing cites.
///
/// Exit status: 0 done (index written or up to date; uncited files listed
/// or removed); 1 `--check` found the index stale (it names the files whose
/// row differs); 2 unusable input (no results folder, an index that cannot
/// be written or a file that cannot be removed).
package enum ResultsIndexTool {
    package enum Action: Sendable, Equatable {
        /// Write the index.
        case write
        /// Change nothing; exit 1 when the index differs from what the folder gives.
        case check
        /// List the files nothing cites; with `delete`, remove them and rewrite the index.
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
    /// each run's kind against `suites`.
    package static func run(root: String, results: String, suites: [SuiteSignature], action: Action) -> Outcome {
        let rootURL = URL(fileURLWithPath: root).standardizedFileURL
        let indexPath = "\(results)/\(ResultsIndex.fileName)"
        let indexURL = rootURL.appendingPathComponent(indexPath)
        do throws(ResultsIndexError) {
            var index = try ResultsIndex(root: rootURL, results: results, suites: suites)
            switch action {
            case .write:
                return try write(index, to: indexURL, indexPath: indexPath, results: results)
            case .check:
                let expected = index.markdown(results: results)
                let current = (try? String(contentsOf: indexURL, encoding: .utf8)) ?? ""
                if current == expected {
                    return Outcome(
                        status: 0, output: "\(indexPath) is up to date (\(index.entries.count) files).\n",
                        diagnostics: "")
                }
                return Outcome(status: 1, output: staleReport(current: current, expected: expected, indexPath: indexPath), diagnostics: "")
            case .prune(let delete):
                let uncited = index.uncited
                guard delete else {
                    var output = uncited.map { "\(results)/\($0.name)  (\($0.kind))\n" }.joined()
                    output += "\(uncited.count) of \(index.entries.count) files in \(results)/ are cited by nothing "
                        + "and are neither a baseline nor the calibration table. Nothing was removed: "
                        + "`BenchRunner results prune --delete` removes them and rewrites \(indexPath).\n"
                    return Outcome(status: 0, output: output, diagnostics: "")
                }
                var output = ""
                for entry in uncited {
                    do {
                        try FileManager.default.removeItem(at: rootURL.appendingPathComponent("\(results)/\(entry.name)"))
                    } catch {
                        throw ResultsIndexError("\(results)/\(entry.name): cannot be removed (\(error.localizedDescription))")
                    }
                    output += "removed \(results)/\(entry.name)\n"
                }
                index = try ResultsIndex(root: rootURL, results: results, suites: suites)
                let written = try write(index, to: indexURL, indexPath: indexPath, results: results)
                return Outcome(status: 0, output: output + written.output, diagnostics: "")
            }
        } catch {
            return Outcome(status: 2, output: "", diagnostics: "error: \(error)\n")
        }
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
        if output.isEmpty {
            output = current.isEmpty ? "\(indexPath): missing\n" : "\(indexPath): stale: the text around the table differs\n"
        }
        return output + "Run `swift run BenchRunner results index` and commit \(indexPath).\n"
    }

    /// The table's rows by file name.
    private static func rows(_ text: String) -> [String: String] {
        var rows: [String: String] = [:]
        for line in text.split(separator: "\n") where line.hasPrefix("| `") {
            let fields = line.split(separator: "|", omittingEmptySubsequences: true)
            guard let first = fields.first else { continue }
            rows[first.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "`"))] = String(line)
        }
        return rows
    }
}
