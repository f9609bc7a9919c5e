import Foundation
import ToolSupport

/// The index of the results folder (`results/README.md`): every file in it,
/// what kind of run or output it is, which revision wrote it and when, and
/// which of the repository's files cite it.
///
/// A result CSV's kind is read from its own rows, first rule that applies:
/// - `calibration`: a `BenchRunner calibrate` table (``ResolutionTable``);
/// - `instructions-only`: every row counted under callgrind (`--instructions only`);
/// - `scale sweep`: every benchmark a `scale.*` sweep;
/// - otherwise the suite (``SuiteSignature``) most of whose series the file
///   has with the same parameters (`default` or `quick`), followed by
///   `, filtered (k of n benchmarks)` when the file lacks some of that
///   suite's benchmarks (a `--filter` run, or a run older than those
///   benchmarks), and `+ instructions` when it also holds callgrind counts;
///   a file none of whose series any suite writes is `other`.
/// A file named `baseline-*.csv` is also a `baseline`. Plots (`.png`) name the
/// run they were drawn from; other files are `text output`.
///
/// A file is cited by a file of the repository (Markdown documents, Swift
/// sources and tests, scripts, CI) that contains its name or, for a run
/// named by its start time (``isRunName(_:)``), its name without `.csv`
/// (tests name runs so; a cited plot cites its run).
package struct ResultsIndex: Sendable {
    /// The index's file name inside the results folder.
    package static let fileName = "README.md"

    /// Every file of the folder except the index, sorted by name.
    package let entries: [ResultsEntry]

    /// Reads the folder `results` (a path from `root`) and the files of
    /// `root` that may cite its files. Throws when the folder cannot be listed.
    package init(root: URL, results: String, suites: [SuiteSignature]) throws(ResultsIndexError) {
        let folder = root.appendingPathComponent(results)
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
                .filter { !$0.hasPrefix(".") && $0 != Self.fileName }.sorted()
        } catch {
            throw ResultsIndexError("\(results): cannot list the folder (\(error.localizedDescription)); "
                + "run from the repository's root or give --root")
        }
        let citing = Self.citingFiles(root: root, excluding: results)
        let runStems = names.filter { $0.hasSuffix(".csv") }.map { String($0.dropLast(4)) }
        entries = names.map { name in
            let path = folder.appendingPathComponent(name).path
            var needle = name
            var madeFrom: String?
            let kind: String
            var revision = ""
            var date = ""
            var benchmarks = 0
            var repetitions = ""
            if name.hasSuffix(".csv") {
                if Self.isRunName(name) { needle = String(name.dropLast(4)) }
                let described = Self.describe(path: path, suites: suites)
                kind = (name.hasPrefix("baseline-") ? "baseline, " : "") + described.kind
                revision = described.revision
                date = described.date
                benchmarks = described.benchmarks
                repetitions = described.repetitions
            } else if name.hasSuffix(".png") {
                let run = runStems.filter { name.hasPrefix($0 + "-") }.max { $0.count < $1.count }
                madeFrom = run.map { $0 + ".csv" }
                kind = "plot"
            } else {
                kind = "text output"
            }
            let citedBy = citing.filter { $0.text.contains(needle) }.map(\.path)
            return ResultsEntry(
                name: name, kind: kind, revision: revision, date: date, benchmarks: benchmarks,
                repetitions: repetitions, citedBy: citedBy,
                isProtected: name.hasPrefix("baseline-") || kind == "calibration", madeFrom: madeFrom)
        }
    }

    /// Whether `name` begins as BenchRunner names a run's file
    /// (`<yyyyMMdd>T<HHmmss>Z-`): unique enough to be cited without `.csv`.
    static func isRunName(_ name: String) -> Bool {
        name.range(of: #"^[0-9]{8}T[0-9]{6}Z-"#, options: .regularExpression) != nil
    }

    /// The files `results prune` removes: nothing cites them, they are
    /// not protected, and for a plot its run goes too (or is not there).
    package var uncited: [ResultsEntry] {
        let candidates = Set(
            entries.filter { $0.citedBy.isEmpty && !$0.isProtected && $0.madeFrom == nil }.map(\.name))
        let present = Set(entries.map(\.name))
        return entries.filter { entry in
            guard entry.citedBy.isEmpty, !entry.isProtected else { return false }
            guard let run = entry.madeFrom else { return candidates.contains(entry.name) }
            return candidates.contains(run) || !present.contains(run)
        }
    }

    // MARK: Reading a file

    private struct Description {
        var kind: String
        var revision = ""
        var date = ""
        var benchmarks = 0
        var repetitions = ""
    }

    private static func describe(path: String, suites: [SuiteSignature]) -> Description {
        let file: ResultFile
        do {
            file = try ResultFile.load(path: path)
        } catch {
            if let table = try? ResolutionTable.load(path: path) {
                return Description(kind: "calibration", revision: table.revision)
            }
            return Description(kind: "not a result file (\(error.message))")
        }
        let benchmarks = Set(file.series.map(\.key.benchmark))
        let allocators = Set(file.series.map(\.key.allocator))
        var seriesOfCount: [Int: Int] = [:]
        for series in file.series where !series.values.isEmpty {
            seriesOfCount[series.values.count, default: 0] += 1
        }
        // The count most series have (the larger on a tie): the run's timing
        // repetitions, not its single counting or instruction pass.
        let usual = seriesOfCount.max { ($0.value, $0.key) < ($1.value, $1.key) }?.key
        let repetitions = usual.map(String.init) ?? ""
        return Description(
            kind: kind(series: file.series, benchmarks: benchmarks, allocators: allocators, suites: suites),
            revision: file.revisions.joined(separator: ", "), date: file.facts.timestamp,
            benchmarks: benchmarks.count, repetitions: repetitions)
    }

    /// The kind of a run with `series` (see the type's comment for the rules).
    package static func kind(
        series: [ResultSeries], benchmarks: Set<String>, allocators: Set<String>, suites: [SuiteSignature]
    ) -> String {
        if series.isEmpty { return "empty" }
        if allocators == ["callgrind"] { return "instructions-only" }
        if benchmarks.allSatisfy({ $0.hasPrefix("scale.") }) { return "scale sweep" }
        let subjects = Set(series.map { SuiteSignature.subject($0.key.benchmark, $0.key.variant, $0.key.params) })
        let matches = suites.map { suite in (suite, subjects.intersection(suite.series).count) }
        guard let best = matches.max(by: { $0.1 < $1.1 }), best.1 > 0 else { return "other" }
        let suite = best.0
        var kind = suite.name
        let present = benchmarks.intersection(suite.benchmarks).count
        if present < suite.benchmarks.count {
            kind += ", filtered (\(present) of \(suite.benchmarks.count) benchmarks)"
        }
        if allocators.contains("callgrind") { kind += " + instructions" }
        return kind
    }

    // MARK: Citations

    /// The repository's text files that may cite a result file, with their
    /// text: Markdown anywhere (documents, DocC catalogs), Swift, shell
    /// scripts, workflow files and `.ci/run`, outside build folders, hidden
    /// folders (except `.ci`) and the results folder itself.
    static func citingFiles(root: URL, excluding results: String) -> [(path: String, text: String)] {
        let manager = FileManager.default
        guard let enumerator = manager.enumerator(atPath: root.path) else { return [] }
        let extensions: Set<String> = ["md", "swift", "sh", "yml", "yaml"]
        var files: [(path: String, text: String)] = []
        while let relative = enumerator.nextObject() as? String {
            let components = relative.split(separator: "/")
            let name = components.last.map(String.init) ?? relative
            let url = root.appendingPathComponent(relative)
            var isDirectory: ObjCBool = false
            guard manager.fileExists(atPath: url.path, isDirectory: &isDirectory) else { continue }
            if isDirectory.boolValue {
                if (name.hasPrefix(".") && name != ".ci") || name.hasPrefix(".build") || relative == results {
                    enumerator.skipDescendants()
                }
                continue
            }
            let fileExtension = (name as NSString).pathExtension
            guard extensions.contains(fileExtension) || relative == ".ci/run" else { continue }
            guard let data = manager.contents(atPath: url.path) else { continue }
            files.append((relative, String(decoding: data, as: UTF8.self)))
        }
        return files.sorted { $0.path < $1.path }
    }

    // MARK: The index's text

    /// The index as Markdown: a header saying what the folder and the index
    /// are, the kinds, how to drop uncited files, then one row per file.
    package func markdown(results: String) -> String {
        var text = """
            # \(results)

            Generated by `swift run BenchRunner results index`; do not edit it by hand (CI runs \
            `BenchRunner results index --check`, which fails when it is stale). Every other file in \
            this folder is exactly what a real run wrote: a BenchRunner CSV, a plot drawn from one \
            (`scripts/plot.sh`), a profiler's or probe's text output. This index is the one file no run wrote.

            Kinds, read from each file's own rows: `default` and `quick` (the suite whose series and \
            parameters the run has), `filtered (k of n benchmarks)` (some of the suite's benchmarks \
            missing: a `--filter` run, or one older than those benchmarks), `+ instructions` (with \
            callgrind counts), `instructions-only`, `scale sweep`, `calibration` (`BenchRunner calibrate`), \
            `baseline` (what CI compares against), `plot`, `text output`. docs/Results.md has the rules.

            A file nothing cites (no document, test, script or CI step names it) and that is neither a \
            baseline nor the calibration table can go: `swift run BenchRunner results prune` lists them \
            (\(uncited.count) now), `--delete` removes them and rewrites this index.

            | file | kind | revision | started (UTC) | benchmarks | repetitions (most series) | cited by |
            |---|---|---|---|---:|---|---|

            """
        for entry in entries {
            let cited = entry.citedBy.isEmpty ? "–" : entry.citedBy.map { "`\($0)`" }.joined(separator: ", ")
            let kind = entry.madeFrom.map { "\(entry.kind) of `\($0)`" } ?? entry.kind
            let fields = [
                "`\(entry.name)`", kind, entry.revision.isEmpty ? "–" : "`\(entry.revision)`",
                entry.date.isEmpty ? "–" : entry.date, entry.benchmarks == 0 ? "–" : "\(entry.benchmarks)",
                entry.repetitions.isEmpty ? "–" : entry.repetitions, cited,
            ]
            text += "| " + fields.joined(separator: " | ") + " |\n"
        }
        return text
    }
}

/// A results folder the index cannot read. Leads to exit status 2.
package struct ResultsIndexError: Error, Sendable, CustomStringConvertible {
    package let description: String

    package init(_ description: String) {
        self.description = description
    }
}
