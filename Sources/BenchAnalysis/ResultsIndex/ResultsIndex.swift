import Foundation
import ToolSupport

/// The index of the results folder (`results/README.md`): every committed
/// file in it, what kind of run or output it is, which revision wrote it and
/// when, and which of the repository's files cite it; then the committed
/// runs in commit order (``CommittedRuns``).
///
/// The index covers what is committed (`git ls-files`): a file in the folder
/// that git does not track is a user's own run (README's `swift run -c
/// release BenchRunner` writes one there), which `results index` names and
/// `results prune` may list, and which never makes the index stale. Without
/// git (a source archive, a vendored copy) the files the index already lists
/// are taken for the committed ones, and its list of committed runs keeps
/// its order; a note says so once.
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
/// run they were drawn from; `progress-<suite>.json` is a `progress history`
/// (what each stage of the suite's recent runs cost against its plan, which
/// the next run's time left reads); other files are `text output`.
///
/// A file is cited by a text file of the repository (any file outside build
/// folders, hidden folders other than `.ci` and `.github`, and the results
/// folder, that holds no NUL byte) that contains its name or, for a run named
/// by its start time (``isRunName(_:)``), its name without `.csv` (a cited
/// plot cites its run). A subfolder is cited only by its path
/// (`results/<name>` followed by `/` or by a character that cannot continue
/// a name).
package struct ResultsIndex: Sendable {
    /// The index's file name inside the results folder.
    static let fileName = "README.md"

    /// Every committed file of the folder except the index, sorted by name.
    let entries: [ResultsEntry]
    /// The folder's files that are not committed (a user's own runs and
    /// what was drawn from them), sorted by name; never in the index.
    let ownEntries: [ResultsEntry]
    /// The committed runs in commit order.
    let committedRuns: CommittedRuns
    /// Why git could not say what is committed or in which order, when it
    /// could not (the one note the tools print); nil when git answered.
    let gitUnavailable: String?

    /// Reads the folder `results` (a path from `root`), asks git (`git`, the
    /// program run as git) what of it is committed and in which order, and
    /// reads the files of `root` that may cite its files. Throws when the
    /// folder cannot be listed.
    init(root: URL, results: String, suites: [SuiteSignature], git: String = "git") throws(ResultsIndexError) {
        let folder = root.appendingPathComponent(results)
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
                .filter { !$0.hasPrefix(".") && $0 != Self.fileName }.sorted()
        } catch {
            throw ResultsIndexError("\(results): cannot list the folder (\(error.localizedDescription)); "
                + "run from the repository's root or give --root")
        }
        let present = Set(names)
        let repository = GitRepository(directory: root.path, program: git)
        let committed: Set<String>
        var order: CommitOrder?
        switch (repository.trackedNames(in: results), repository.commitOrder()) {
        case (.success(let tracked), .success(let commits)):
            committed = present.intersection(tracked)
            order = commits
            gitUnavailable = nil
        case (.failure(let problem), _), (_, .failure(let problem)):
            let listed = (try? String(contentsOf: folder.appendingPathComponent(Self.fileName), encoding: .utf8))
                .map(ResultsIndexTool.rows) ?? [:]
            committed = listed.isEmpty ? present : present.intersection(listed.keys)
            gitUnavailable = problem.reason
        }
        let citing = Self.citingFiles(root: root, excluding: results)
        let runStems = names.filter { $0.hasSuffix(".csv") }.map { String($0.dropLast(4)) }
        var loaded: [String: ResultFile] = [:]
        let all = names.map { name in
            let path = folder.appendingPathComponent(name).path
            var madeFrom: String?
            let kind: String
            var revision = ""
            var date = ""
            var benchmarks = 0
            var repetitions = ""
            var isDirectory: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
            let cited: (CitingFile) -> Bool
            if isDirectory.boolValue {
                kind = "folder"
                cited = { Self.containsPath("\(results)/\(name)", in: $0.text) }
            } else {
                let needle = name.hasSuffix(".csv") && Self.isRunName(name) ? String(name.dropLast(4)) : name
                cited = { $0.cites(needle) }
                if name.hasSuffix(".csv") {
                    let described = Self.describe(path: path, suites: suites)
                    loaded[name] = described.file
                    kind = (name.hasPrefix("baseline-") ? "baseline, " : "") + described.kind
                    revision = described.revision
                    date = described.date
                    benchmarks = described.benchmarks
                    repetitions = described.repetitions
                } else if name.hasSuffix(".png") {
                    let run = runStems.filter { name.hasPrefix($0 + "-") }.max { $0.count < $1.count }
                    madeFrom = run.map { $0 + ".csv" }
                    kind = "plot"
                } else if name.hasPrefix("progress-") && name.hasSuffix(".json") {
                    kind = "progress history"
                } else {
                    kind = "text output"
                }
            }
            return ResultsEntry(
                name: name, kind: kind, revision: revision, date: date, benchmarks: benchmarks,
                repetitions: repetitions, citedBy: citing.filter { cited($0) }.map(\.path),
                isProtected: name.hasPrefix("baseline-") || kind == "calibration" || kind == "progress history",
                madeFrom: madeFrom)
        }
        entries = all.filter { committed.contains($0.name) }
        ownEntries = all.filter { !committed.contains($0.name) }
        let runNames = entries.map(\.name).filter { HistoryRuns.isRunFileName($0) }
        if let order {
            let files = runNames.compactMap { loaded[$0] }
            committedRuns = CommittedRuns(history: HistoryRuns(files: files, order: order), order: order)
        } else {
            let recorded = CommittedRuns.read(folder: folder.path)?.runs ?? []
            let kept = recorded.filter { committed.contains($0.name) }
            let listed = Set(kept.map(\.name))
            let unlisted = runNames.filter { !listed.contains($0) }.map { CommittedRuns.Run(name: $0, commit: nil) }
            committedRuns = CommittedRuns(runs: kept + unlisted)
        }
    }

    /// Whether `name` begins as BenchRunner names a run's file
    /// (`<yyyyMMdd>T<HHmmss>Z-`): unique enough to be cited without `.csv`.
    static func isRunName(_ name: String) -> Bool {
        hasRunStamp(Array(name.utf8.prefix(runStampLength)), at: 0)
    }

    /// The length of a run's start time as its name begins with it:
    /// `<yyyyMMdd>T<HHmmss>Z-`.
    static let runStampLength = 17

    /// Whether `bytes` at `start` hold a run's start time as its name begins
    /// with it (``isRunName(_:)``).
    static func hasRunStamp(_ bytes: [UInt8], at start: Int) -> Bool {
        guard start + runStampLength <= bytes.count, bytes[start + 8] == UInt8(ascii: "T"),
            bytes[start + 15] == UInt8(ascii: "Z"), bytes[start + 16] == UInt8(ascii: "-")
        else { return false }
        let digits = UInt8(ascii: "0")...UInt8(ascii: "9")
        return (0..<8).allSatisfy { digits.contains(bytes[start + $0]) }
            && (9..<15).allSatisfy { digits.contains(bytes[start + $0]) }
    }

    /// The files `results prune` lists, committed or not: nothing cites
    /// them, they are neither protected nor a committed run (the history of
    /// the committed runs reads every one), and for a plot its run goes too
    /// (or is not there).
    var uncited: [ResultsEntry] {
        let runs = Set(committedRuns.names)
        let all = (entries + ownEntries).sorted { $0.name < $1.name }
        let goes: (ResultsEntry) -> Bool = { $0.citedBy.isEmpty && !$0.isProtected && !runs.contains($0.name) }
        let candidates = Set(all.filter { goes($0) && $0.madeFrom == nil }.map(\.name))
        let present = Set(all.map(\.name))
        return all.filter { entry in
            guard goes(entry) else { return false }
            guard let run = entry.madeFrom else { return candidates.contains(entry.name) }
            return candidates.contains(run) || !present.contains(run)
        }
    }

    /// How many of `listed` are among `entries` (the committed files).
    static func committedCount(of listed: [ResultsEntry], in entries: [ResultsEntry]) -> Int {
        let committed = Set(entries.map(\.name))
        return listed.filter { committed.contains($0.name) }.count
    }

    /// Whether `text` holds `path` as a whole path: followed by `/`, or by
    /// nothing that could continue a file's name.
    static func containsPath(_ path: String, in text: String) -> Bool {
        var rest = text[...]
        while let found = rest.range(of: path) {
            guard let next = rest[found.upperBound...].first else { return true }
            if next == "/" || !(next.isLetter || next.isNumber || "._-".contains(next)) { return true }
            rest = rest[found.upperBound...]
        }
        return false
    }

    // MARK: Reading a file

    private struct Description {
        var kind: String
        var file: ResultFile?
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
                return Description(
                    kind: "calibration", revision: table.calibrations.map(\.revision).joined(separator: ", "))
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
            kind: kind(series: file.series, benchmarks: benchmarks, allocators: allocators, suites: suites), file: file,
            revision: file.revisions.joined(separator: ", "), date: file.facts.timestamp,
            benchmarks: benchmarks.count, repetitions: repetitions)
    }

    /// The kind of a run with `series` (see the type's comment for the rules).
    static func kind(
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
    /// text: every file holding no NUL byte (Markdown, Swift, scripts in any
    /// language, JSON, workflow files, `.ci/run`), outside build folders
    /// (`.build*`), hidden folders other than `.ci` and `.github`, and the
    /// results folder itself; hidden files (a build's or CI's logs) are not
    /// read.
    static func citingFiles(root: URL, excluding results: String) -> [CitingFile] {
        let manager = FileManager.default
        guard let enumerator = manager.enumerator(atPath: root.path) else { return [] }
        var files: [CitingFile] = []
        while let relative = enumerator.nextObject() as? String {
            let name = relative.split(separator: "/").last.map(String.init) ?? relative
            let url = root.appendingPathComponent(relative)
            var isDirectory: ObjCBool = false
            guard manager.fileExists(atPath: url.path, isDirectory: &isDirectory) else { continue }
            if isDirectory.boolValue {
                if (name.hasPrefix(".") && name != ".ci" && name != ".github") || name.hasPrefix(".build")
                    || relative == results
                {
                    enumerator.skipDescendants()
                }
                continue
            }
            guard !name.hasPrefix("."), let data = manager.contents(atPath: url.path),
                !data.contains(0)
            else { continue }
            files.append(CitingFile(path: relative, text: String(decoding: data, as: UTF8.self)))
        }
        return files.sorted { $0.path < $1.path }
    }

    /// A file that may cite result files: its path from the root, its text,
    /// and every run name it holds, found in one pass.
    ///
    /// Why the names: whether a file cites a result is whether its text
    /// holds the name, and asking that of every result (two hundred) in every
    /// file (six megabytes of text) character by character took twenty
    /// seconds. A run's name (`<yyyyMMdd>T<HHmmss>Z-<12 hex digits>`), which
    /// begins every run's file and plot, is looked up among the names the
    /// one pass found; the text is searched only for a name that begins
    /// with one the file holds, or begins with none (a baseline, the
    /// resolution table), so the answer is the text search's.
    struct CitingFile {
        /// The path from the repository's root.
        let path: String
        /// The whole text.
        let text: String
        /// Every run name in the text.
        let runNames: Set<String>

        init(path: String, text: String) {
            self.path = path
            self.text = text
            runNames = Self.runNames(in: text)
        }

        /// Whether the text holds `needle`.
        func cites(_ needle: String) -> Bool {
            if let run = Self.runName(beginning: needle) {
                guard runNames.contains(run) else { return false }
                if run.utf8.count == needle.utf8.count { return true }
            }
            return text.contains(needle)
        }

        /// The length of a run name: its start time (``ResultsIndex/runStampLength``)
        /// and 12 hex digits of its revision.
        static let runNameLength = ResultsIndex.runStampLength + 12

        /// Whether `bytes` at `start` hold a run name.
        private static func isRunName(_ bytes: [UInt8], at start: Int) -> Bool {
            guard start + runNameLength <= bytes.count, ResultsIndex.hasRunStamp(bytes, at: start) else { return false }
            let digits = UInt8(ascii: "0")...UInt8(ascii: "9")
            let letters = UInt8(ascii: "a")...UInt8(ascii: "f")
            return (ResultsIndex.runStampLength..<runNameLength).allSatisfy {
                digits.contains(bytes[start + $0]) || letters.contains(bytes[start + $0])
            }
        }

        /// The run name `name` begins with, if it begins with one.
        static func runName(beginning name: String) -> String? {
            let bytes = Array(name.utf8.prefix(runNameLength))
            return isRunName(bytes, at: 0) ? String(decoding: bytes, as: UTF8.self) : nil
        }

        /// Every run name in `text`, wherever it starts.
        static func runNames(in text: String) -> Set<String> {
            let bytes = Array(text.utf8)
            var names: Set<String> = []
            var start = 0
            while start + runNameLength <= bytes.count {
                if isRunName(bytes, at: start) {
                    names.insert(String(decoding: bytes[start..<(start + runNameLength)], as: UTF8.self))
                }
                start += 1
            }
            return names
        }
    }

    // MARK: The index's text

    /// The index as Markdown: a header saying what the folder and the index
    /// are, the kinds, how to drop uncited files, then one row per file.
    func markdown(results: String) -> String {
        var text = """
            # \(results)

            Generated by `swift run BenchRunner results index`; do not edit it by hand (CI runs \
            `BenchRunner results index --check`, which fails when it is stale). Every other file in \
            this folder is exactly what a real run wrote: a BenchRunner CSV, a plot drawn from one \
            (`scripts/plot.sh`), a profiler's or probe's text output. This index is the one file no run wrote.

            It lists the committed files (`git ls-files`). A run of yours that README's \
            `swift run -c release BenchRunner` writes here is not listed and changes no test: \
            `results index` names it; `git add` it before `results index` to list it.

            Kinds, read from each file's own rows: `default` and `quick` (the suite whose series and \
            parameters the run has), `filtered (k of n benchmarks)` (some of the suite's benchmarks \
            missing: a `--filter` run, or one older than those benchmarks), `+ instructions` (with \
            callgrind counts), `instructions-only`, `scale sweep`, `calibration` (`BenchRunner calibrate`), \
            `baseline` (what CI compares against), `plot`, `text output`. docs/Results.md has the rules.

            Every committed run is read by the history of the committed runs (CommittedHistoryTests, \
            `report:history` regions, `scripts/history_reference.py`) through the list at the end of \
            this index, so none of them can go. Another file nothing cites (no text file of the \
            repository names it) that is neither a baseline nor the calibration table can go: \
            `swift run BenchRunner results prune` lists them (\(Self.committedCount(of: uncited, in: entries)) \
            committed now, and your own runs nothing cites), `--delete` moves them into \
            `\(results)/.pruned-<UTC time>/`, prints how to restore them and rewrites this index.

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
        text += """

            ## Committed runs in commit order

            Every committed run, oldest first in the repository's commit order (`git rev-list \
            --topo-order`; runs of one commit by their start time), with the commit its revision \
            names (`-` when it names none). The history of the committed runs reads these runs in \
            this order, and `BenchRunner history` orders by it when git is not there (a source archive).

            """
        text += committedRuns.markdown
        return text
    }
}

/// A results folder the index cannot read. Leads to exit status 2.
package struct ResultsIndexError: Error, Sendable, CustomStringConvertible {
    package let description: String

    init(_ description: String) {
        self.description = description
    }
}
