@testable import BenchAnalysis
import BenchKit
import Foundation
import ToolSupport
import XCTest

/// `BenchRunner results`: the index reads each file's kind from its rows and
/// its citations from the repository's text files, covers the committed
/// files only (a user's own run never makes it stale), works without git
/// from what it records, `--check` names what went stale, and prune moves
/// aside only what nothing uses (never a committed run, a baseline or the
/// calibration table), only when asked to, and says how to restore it.
final class ResultsIndexTests: XCTestCase {
    private var root: URL!

    private static let header =
        "run_id,timestamp,git_rev,host,cpu,cores,swift_version,allocator,benchmark,variant,params,metric,unit,repetition,value"

    private static let suites = [
        SuiteSignature(name: "default", plans: [("a", "v", "n=5"), ("b", "v", "n=5")]),
        SuiteSignature(name: "quick", plans: [("a", "v", "n=1"), ("b", "v", "n=1")]),
    ]

    override func setUpWithError() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("results-index-\(UUID().uuidString)")
        for folder in ["results", "docs", "Tests"] {
            try FileManager.default.createDirectory(
                at: root.appendingPathComponent(folder), withIntermediateDirectories: true)
        }
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: root)
    }

    private func write(_ path: String, _ text: String) throws {
        try text.write(to: root.appendingPathComponent(path), atomically: true, encoding: .utf8)
    }

    /// A run of `revision` with one row per (allocator, benchmark, params), 3 repetitions each.
    private func run(_ revision: String, _ series: [(allocator: String, benchmark: String, params: String)]) -> String {
        var lines = [Self.header]
        for item in series {
            for repetition in 1...3 {
                lines.append(
                    "r,2026-01-01T00:00:00Z,\(revision),vm,cpu,2,6.3,\(item.allocator),\(item.benchmark),v,"
                        + "\(item.params),m,ns,\(repetition),\(repetition)")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private func makeFolder() throws {
        try write("results/20260101T000000Z-aaaaaaaaaaaa.csv", run("aaaaaaaaaaaa", [("system", "a", "n=5"), ("system", "b", "n=5")]))
        try write("results/20260101T000100Z-bbbbbbbbbbbb.csv", run("bbbbbbbbbbbb", [("system", "a", "n=1")]))
        try write("results/20260101T000200Z-cccccccccccc.csv", run("cccccccccccc", [("callgrind", "a", "n=1")]))
        try write("results/20260101T000300Z-dddddddddddd.csv", run("dddddddddddd", [("system", "scale.x", "n=10")]))
        try write(
            "results/baseline-other.csv",
            run("eeeeeeeeeeee", [("system", "a", "n=1"), ("system", "b", "n=1"), ("callgrind", "a", "n=1")]))
        try write(
            "results/calibration-table.csv",
            "benchmark,variant,params,allocator,metric,runs,log_deviation,resolution,spread,revision,repetitions\n"
                + "a,v,n=1,system,m,7,0.1,0.2,0.1,ffffffffffff,7\n")
        try write("results/20260101T000000Z-aaaaaaaaaaaa-throughput.png", "")
        try write("results/20260101T000300Z-dddddddddddd-x.png", "")
        try write("results/probe.txt", "a probe's output\n")
        try write("results/progress-standard.json", "{\"ratios\":{}}\n")
        try write("docs/A.md", "The run `results/20260101T000000Z-aaaaaaaaaaaa.csv` shows it; so does the calibration-table.\n")
        try write("Tests/RunTests.swift", "let run = \"20260101T000100Z-bbbbbbbbbbbb\"\n")
    }

    private func index() throws -> ResultsIndex {
        try ResultsIndex(root: root, results: "results", suites: Self.suites)
    }

    func testKindsRevisionsAndCitationsComeFromTheFilesAndTheRepository() throws {
        try makeFolder()
        let entries = Dictionary(uniqueKeysWithValues: try index().entries.map { ($0.name, $0) })
        XCTAssertEqual(entries["20260101T000000Z-aaaaaaaaaaaa.csv"]?.kind, "default")
        XCTAssertEqual(entries["20260101T000000Z-aaaaaaaaaaaa.csv"]?.citedBy, ["docs/A.md"])
        XCTAssertEqual(entries["20260101T000000Z-aaaaaaaaaaaa.csv"]?.revision, "aaaaaaaaaaaa")
        XCTAssertEqual(entries["20260101T000000Z-aaaaaaaaaaaa.csv"]?.date, "2026-01-01T00:00:00Z")
        XCTAssertEqual(entries["20260101T000000Z-aaaaaaaaaaaa.csv"]?.repetitions, "3")
        XCTAssertEqual(entries["20260101T000100Z-bbbbbbbbbbbb.csv"]?.kind, "quick, filtered (1 of 2 benchmarks)")
        XCTAssertEqual(entries["20260101T000100Z-bbbbbbbbbbbb.csv"]?.citedBy, ["Tests/RunTests.swift"])
        XCTAssertEqual(entries["20260101T000200Z-cccccccccccc.csv"]?.kind, "instructions-only")
        XCTAssertEqual(entries["20260101T000300Z-dddddddddddd.csv"]?.kind, "scale sweep")
        XCTAssertEqual(entries["baseline-other.csv"]?.kind, "baseline, quick + instructions")
        XCTAssertEqual(entries["calibration-table.csv"]?.kind, "calibration")
        XCTAssertEqual(entries["calibration-table.csv"]?.revision, "ffffffffffff")
        // A file not named by a run's start time is cited only by its whole name.
        XCTAssertEqual(entries["calibration-table.csv"]?.citedBy, [])
        XCTAssertEqual(entries["20260101T000000Z-aaaaaaaaaaaa-throughput.png"]?.madeFrom, "20260101T000000Z-aaaaaaaaaaaa.csv")
        XCTAssertEqual(entries["probe.txt"]?.kind, "text output")
        XCTAssertEqual(entries["progress-standard.json"]?.kind, "progress history")
        XCTAssertEqual(entries["progress-standard.json"]?.isProtected, true, "the next run reads it: never pruned")
        XCTAssertNil(entries["README.md"])
    }

    func testPruneListsOnlyWhatNothingCitesAndMovesItAsideOnlyWhenAsked() throws {
        try makeFolder()
        // Not a git repository and no index yet: every file is taken for committed.
        // Committed runs are read by the history: none goes, nor a plot of one.
        let uncited = ["probe.txt"]
        XCTAssertEqual(try index().uncited.map(\.name), uncited)

        let dryRun = ResultsIndexTool.run(root: root.path, results: "results", suites: Self.suites, action: .prune(delete: false))
        XCTAssertEqual(dryRun.status, 0)
        XCTAssertTrue(dryRun.output.contains("1 of 10 files"), dryRun.output)
        XCTAssertTrue(dryRun.output.contains("Nothing was moved"), dryRun.output)
        for name in uncited {
            XCTAssertTrue(FileManager.default.fileExists(atPath: root.appendingPathComponent("results/\(name)").path), name)
        }

        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let pruned = ResultsIndexTool.run(
            root: root.path, results: "results", suites: Self.suites, action: .prune(delete: true), now: now)
        XCTAssertEqual(pruned.status, 0, pruned.diagnostics)
        let aside = "results/.pruned-20270115T080000Z"
        XCTAssertTrue(pruned.output.contains("moved results/probe.txt into \(aside)/"), pruned.output)
        XCTAssertTrue(
            pruned.output.contains("To restore them: cd \(root.path) && mv \(aside)/* results/ && rmdir \(aside)"),
            pruned.output)
        let left = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("results").path).sorted()
        XCTAssertEqual(
            left,
            [
                ".pruned-20270115T080000Z",
                "20260101T000000Z-aaaaaaaaaaaa-throughput.png", "20260101T000000Z-aaaaaaaaaaaa.csv",
                "20260101T000100Z-bbbbbbbbbbbb.csv", "20260101T000200Z-cccccccccccc.csv",
                "20260101T000300Z-dddddddddddd-x.png", "20260101T000300Z-dddddddddddd.csv", "README.md",
                "baseline-other.csv", "calibration-table.csv", "progress-standard.json",
            ])
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent(aside).path).sorted(), uncited)
        let check = ResultsIndexTool.run(root: root.path, results: "results", suites: Self.suites, action: .check)
        XCTAssertEqual(check.status, 0, check.output)
        let again = ResultsIndexTool.run(
            root: root.path, results: "results", suites: Self.suites, action: .prune(delete: true), now: now)
        XCTAssertTrue(again.output.contains("nothing was moved"), again.output)
    }

    // MARK: Git: what is committed, and without it

    /// Runs git in `root`; skips the test when git cannot be started.
    private func git(_ arguments: String...) throws {
        guard let outcome = ExternalCommand.run(["git", "-C", root.path] + arguments), outcome.status != 127 else {
            throw XCTSkip("git is not installed")
        }
        XCTAssertEqual(outcome.status, 0, "git \(arguments.joined(separator: " ")): \(outcome.errors)")
    }

    /// `root` as a git repository with everything in it committed.
    private func commitEverything() throws {
        try git("init", "-q")
        try git("add", "-A")
        try git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "runs")
    }

    func testCheckNamesEachFileWhoseRowIsStale() throws {
        try makeFolder()
        try commitEverything()
        XCTAssertEqual(
            ResultsIndexTool.run(root: root.path, results: "results", suites: Self.suites, action: .check).status, 1,
            "no index yet")
        XCTAssertEqual(ResultsIndexTool.run(root: root.path, results: "results", suites: Self.suites, action: .write).status, 0)
        XCTAssertEqual(ResultsIndexTool.run(root: root.path, results: "results", suites: Self.suites, action: .check).status, 0)

        try write("results/20260102T000000Z-gggggggggggg.csv", run("gggggggggggg", [("system", "a", "n=5")]))
        try git("add", "results")
        try write("docs/B.md", "See results/probe.txt.\n")
        let stale = ResultsIndexTool.run(root: root.path, results: "results", suites: Self.suites, action: .check)
        XCTAssertEqual(stale.status, 1)
        XCTAssertTrue(stale.output.contains("20260102T000000Z-gggggggggggg.csv is not listed"), stale.output)
        XCTAssertTrue(stale.output.contains("the row of probe.txt differs"), stale.output)
        let index = try String(contentsOf: root.appendingPathComponent("results/README.md"), encoding: .utf8)
        XCTAssertTrue(index.contains("one file no run wrote"))
    }

    /// README's two commands in either order: a run of the user's own lands
    /// in the folder uncommitted; the index names it and stays up to date,
    /// prune lists it (it is nobody's), and once committed it is listed.
    func testAUsersOwnRunIsNamedButNeverMakesTheIndexStale() throws {
        try makeFolder()
        try commitEverything()
        XCTAssertEqual(ResultsIndexTool.run(root: root.path, results: "results", suites: Self.suites, action: .write).status, 0)
        let committedIndex = try String(contentsOf: root.appendingPathComponent("results/README.md"), encoding: .utf8)

        let own = "20260103T000000Z-hhhhhhhhhhhh.csv"
        try write("results/\(own)", run("hhhhhhhhhhhh", [("system", "a", "n=5"), ("system", "b", "n=5")]))
        try write("results/20260103T000000Z-hhhhhhhhhhhh-throughput.png", "")
        let check = ResultsIndexTool.run(root: root.path, results: "results", suites: Self.suites, action: .check)
        XCTAssertEqual(check.status, 0, check.output)
        XCTAssertTrue(check.output.contains("2 file(s) in results/ are not committed (your own runs)"), check.output)
        XCTAssertTrue(check.output.contains(own), check.output)
        let written = ResultsIndexTool.run(root: root.path, results: "results", suites: Self.suites, action: .write)
        XCTAssertEqual(written.status, 0)
        XCTAssertEqual(
            try String(contentsOf: root.appendingPathComponent("results/README.md"), encoding: .utf8), committedIndex,
            "a user's run changes nothing in the index")
        XCTAssertEqual(
            try index().uncited.map(\.name),
            ["20260103T000000Z-hhhhhhhhhhhh-throughput.png", own, "probe.txt"])
        let dryRun = ResultsIndexTool.run(root: root.path, results: "results", suites: Self.suites, action: .prune(delete: false))
        XCTAssertTrue(dryRun.output.contains("results/\(own)  (default, not committed)"), dryRun.output)

        try git("add", "results/\(own)")
        let stale = ResultsIndexTool.run(root: root.path, results: "results", suites: Self.suites, action: .check)
        XCTAssertEqual(stale.status, 1)
        XCTAssertTrue(stale.output.contains("\(own) is not listed"), stale.output)
    }

    /// The committed runs are listed in git's commit order (not their
    /// times'), each with its commit, and without git (a source archive:
    /// not a repository; git not installed) the index keeps what it records
    /// and says so once.
    func testCommittedRunsGoInCommitOrderAndWithoutGitTheIndexKeepsWhatItRecords() throws {
        try write("Tests/RunTests.swift", "\n")
        // The newer commit's run was made first.
        try write("results/20260101T000000Z-222222222222.csv", run("222222222222", [("system", "a", "n=5")]))
        try commitEverything()
        let first = try XCTUnwrap(commit())
        try FileManager.default.moveItem(
            at: root.appendingPathComponent("results/20260101T000000Z-222222222222.csv"),
            to: root.appendingPathComponent("results/20260101T000000Z-\(first.prefix(12)).csv"))
        try write(
            "results/20260101T000000Z-\(first.prefix(12)).csv",
            run(String(first.prefix(12)), [("system", "a", "n=5")]).replacingOccurrences(of: "2026-01-01T00:00:00Z", with: "2026-01-02T00:00:00Z"))
        try git("add", "-A")
        try git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "second")
        let second = try XCTUnwrap(commit())
        try write("results/20260101T000100Z-\(second.prefix(12)).csv", run(String(second.prefix(12)), [("system", "a", "n=5")]))
        try git("add", "-A")
        XCTAssertEqual(ResultsIndexTool.run(root: root.path, results: "results", suites: Self.suites, action: .write).status, 0)
        let listed = try XCTUnwrap(CommittedRuns.read(folder: root.appendingPathComponent("results").path))
        XCTAssertEqual(
            listed.runs,
            [
                CommittedRuns.Run(name: "20260101T000000Z-\(first.prefix(12)).csv", commit: first),
                CommittedRuns.Run(name: "20260101T000100Z-\(second.prefix(12)).csv", commit: second),
            ])

        // git not installed: the same index, a note, a user's file left out.
        try write("results/20260105T000000Z-ffffffffffff.csv", run("ffffffffffff", [("system", "a", "n=5")]))
        let missing = ResultsIndexTool.run(
            root: root.path, results: "results", suites: Self.suites, action: .check, git: "git-not-installed-here")
        XCTAssertEqual(missing.status, 0, missing.output)
        XCTAssertEqual(missing.output.components(separatedBy: "note: git cannot say").count, 2, missing.output)
        XCTAssertTrue(missing.output.contains("git-not-installed-here is not installed"), missing.output)
        XCTAssertTrue(missing.output.contains("20260105T000000Z-ffffffffffff.csv"), missing.output)
        // Not a repository (an archive): the same.
        try FileManager.default.removeItem(at: root.appendingPathComponent(".git"))
        let archive = ResultsIndexTool.run(root: root.path, results: "results", suites: Self.suites, action: .check)
        XCTAssertEqual(archive.status, 0, archive.output)
        XCTAssertTrue(archive.output.contains("not a git repository"), archive.output)
        XCTAssertEqual(try index().committedRuns, listed)
    }

    private func commit() throws -> String? {
        ExternalCommand.run(["git", "-C", root.path, "rev-parse", "HEAD"])?.output
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    // MARK: Citations

    /// Every text file cites, whatever its kind; a folder only by its path.
    func testEveryTextFileCitesAndAFolderOnlyByItsPath() throws {
        try makeFolder()
        try FileManager.default.createDirectory(
            at: root.appendingPathComponent("results/probes"), withIntermediateDirectories: true)
        try write("results/probes/one.txt", "a probe's output\n")
        try FileManager.default.createDirectory(
            at: root.appendingPathComponent("results/traces"), withIntermediateDirectories: true)
        try write("results/traces/one.txt", "a trace\n")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("scripts"), withIntermediateDirectories: true)
        try write("scripts/read.py", "open('results/20260101T000200Z-cccccccccccc.csv')\n")
        try write("scripts/reference.json", "{\"run\": \"20260101T000300Z-dddddddddddd\"}\n")
        try write("scripts/probe", "cat results/probe.txt results/probes/one.txt\n")
        // `traces` as a word and as the start of another path cites nothing.
        try write("docs/C.md", "The traces are in results/tracesold/ and in results/traces-2/.\n")
        let entries = Dictionary(uniqueKeysWithValues: try index().entries.map { ($0.name, $0) })
        XCTAssertEqual(entries["20260101T000200Z-cccccccccccc.csv"]?.citedBy, ["scripts/read.py"])
        XCTAssertEqual(entries["20260101T000300Z-dddddddddddd.csv"]?.citedBy, ["scripts/reference.json"])
        XCTAssertEqual(entries["probe.txt"]?.citedBy, ["scripts/probe"])
        XCTAssertEqual(entries["probes"]?.citedBy, ["scripts/probe"])
        XCTAssertEqual(entries["traces"]?.citedBy, [])
        XCTAssertEqual(try index().uncited.map(\.name), ["traces"])
    }

    /// A file cites a name when its text holds it, whether the name is a
    /// run's (found among the run names the file holds), begins with one (a
    /// plot's) or is another (a baseline's): the same answer as searching
    /// the text for each name.
    func testAFileCitesExactlyTheNamesItsTextHolds() {
        let text = """
            results/20261207T071359Z-3928d02a8897.csv and 20261207T071944Z-3928d02a8897-latency.png;
            x20261126T092931Z-787b90b3c765abc, baseline-quick.csv, 2026120T071359Z-3928d02a8897,
            20261207T071359Z-3928D02A8897 and é20261101T000000Z-0123456789ab
            """
        let file = ResultsIndex.CitingFile(path: "docs/A.md", text: text)
        XCTAssertEqual(
            file.runNames,
            [
                "20261207T071359Z-3928d02a8897", "20261207T071944Z-3928d02a8897", "20261126T092931Z-787b90b3c765",
                "20261101T000000Z-0123456789ab",
            ])
        let needles = [
            "20261207T071359Z-3928d02a8897", "20261207T071944Z-3928d02a8897", "20261207T071944Z-3928d02a8897-latency.png",
            "20261207T071944Z-3928d02a8897-drift.png", "20261207T071359Z-3928d02a8897-latency.png",
            "20261126T092931Z-787b90b3c765", "20261101T000000Z-0123456789ab", "20261207T071359Z-3928D02A8897",
            "20261208T000000Z-000000000000", "baseline-quick.csv", "baseline-counts.csv", "resolution.csv",
        ]
        for needle in needles {
            XCTAssertEqual(file.cites(needle), text.contains(needle), needle)
        }
        XCTAssertEqual(needles.filter(file.cites).count, 7)
    }

    // MARK: Prune on a copy of the repository

    /// `results prune --delete` on a copy of the repository without git (what
    /// a source archive is) holding a run of the user's own: it moves only
    /// what nothing uses, says how to restore it, and afterwards the readers
    /// of committed runs (the history's known change points, every generated
    /// region of the documents) still find everything on the copy.
    func testPruneOnACopyOfTheRepositoryLosesNothingTheTestsRead() throws {
        try SlowTests.require("copies the repository, then reads every committed run and region on the copy")
        StandardCatalog.install()
        try Self.copyRepository(from: Repository.root, to: root)
        let results = root.appendingPathComponent("results")
        let committed = try XCTUnwrap(CommittedRuns.read(folder: results.path))
        // Named in two parts: this file is in the copy, and must not cite it.
        let own = "20991231T000000Z-" + "0123456789ab.csv"
        try FileManager.default.copyItem(
            at: results.appendingPathComponent(try XCTUnwrap(committed.names.last)), to: results.appendingPathComponent(own))
        let suites = try SuiteSignature.standardSuites()

        let pruned = ResultsIndexTool.run(root: root.path, results: "results", suites: suites, action: .prune(delete: true))
        XCTAssertEqual(pruned.status, 0, pruned.output + pruned.diagnostics)
        XCTAssertTrue(pruned.output.contains("moved results/\(own) into results/.pruned-"), pruned.output)
        XCTAssertTrue(pruned.output.contains("note: git cannot say what is committed"), pruned.output)
        XCTAssertEqual(CommittedRuns.read(folder: results.path), committed, "no committed run was moved")
        for name in committed.names {
            XCTAssertTrue(FileManager.default.fileExists(atPath: results.appendingPathComponent(name).path), name)
        }
        try CommittedHistoryTests.checkTheKnownChangePoints(
            in: HistoryReport(runs: try CommittedHistoryTests.committedRuns(root: root), options: HistoryOptions()))
        let report = ReportTool.run(root: root.path, check: true)
        XCTAssertEqual(report.status, 0, report.output + report.diagnostics)

        // The printed command brings back what was moved.
        let restore = try XCTUnwrap(
            pruned.output.split(separator: "\n").first { $0.hasPrefix("To restore them: ") }, pruned.output)
        let move = try XCTUnwrap(restore.dropFirst("To restore them: ".count).components(separatedBy: " && swift run").first)
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/bin/sh")
        shell.arguments = ["-c", move]
        try shell.run()
        shell.waitUntilExit()
        XCTAssertEqual(shell.terminationStatus, 0, move)
        XCTAssertTrue(FileManager.default.fileExists(atPath: results.appendingPathComponent(own).path))
        XCTAssertFalse(
            try FileManager.default.contentsOfDirectory(atPath: results.path).contains { $0.hasPrefix(".pruned-") })
    }

    /// Copies the repository's files at `source` into `destination`, without
    /// git, build folders and other hidden folders (`.ci` and `.github` kept).
    static func copyRepository(from source: URL, to destination: URL) throws {
        let manager = FileManager.default
        let enumerator = try XCTUnwrap(manager.enumerator(atPath: source.path))
        while let relative = enumerator.nextObject() as? String {
            let name = relative.split(separator: "/").last.map(String.init) ?? relative
            let from = source.appendingPathComponent(relative)
            var isDirectory: ObjCBool = false
            guard manager.fileExists(atPath: from.path, isDirectory: &isDirectory) else { continue }
            if name.hasPrefix("."), name != ".ci", name != ".github", name != ".gitignore" {
                if isDirectory.boolValue { enumerator.skipDescendants() }
                continue
            }
            let to = destination.appendingPathComponent(relative)
            if isDirectory.boolValue {
                try manager.createDirectory(at: to, withIntermediateDirectories: true)
            } else {
                try? manager.removeItem(at: to)
                try manager.copyItem(at: from, to: to)
            }
        }
    }

    func testAFolderThatCannotBeListedIsExitStatusTwo() {
        let outcome = ResultsIndexTool.run(root: root.path, results: "missing", suites: Self.suites, action: .write)
        XCTAssertEqual(outcome.status, 2)
        XCTAssertTrue(outcome.diagnostics.contains("missing: cannot list the folder"), outcome.diagnostics)
    }
}
