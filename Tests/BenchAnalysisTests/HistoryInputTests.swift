@testable import BenchAnalysis
import Foundation
import XCTest

/// How `history` finds, orders and refuses its input: no catalogue needed.
final class HistoryInputTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("history-input-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    private static let header = "run_id,timestamp,git_rev,host,cpu,cores,swift_version,allocator,benchmark,variant,params,metric,unit,repetition,value"

    /// A result file of revision `revision` made at `stamp` (`20261124T085214Z`).
    @discardableResult
    private func write(stamp: String, revision: String, values: [Double] = [10], host: String = "vm") throws -> String {
        let iso = "2026-11-\(stamp.dropFirst(6).prefix(2))T\(stamp.dropFirst(9).prefix(2)):00:00Z"
        var lines = [Self.header]
        for (index, value) in values.enumerated() {
            lines.append(
                "\(stamp)-\(revision),\(iso),\(revision),\(host),AMD EPYC,2,6.3.1,system,b,v,n=1,ns_per_op,ns,\(index + 1),\(value)")
        }
        let path = folder.appendingPathComponent("\(stamp)-\(revision).csv").path
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func testACommitIsFoundByItsPrefixWithOrWithoutDirty() {
        let order = CommitOrder(commits: ["aaaaaaa111", "bbbbbbb222", "bbbbbbb333"])
        XCTAssertEqual(order.position(of: "aaaaaaa111"), 0)
        XCTAssertEqual(order.position(of: "aaaaaaa"), 0)
        XCTAssertEqual(order.position(of: "AAAAAAA1-dirty"), 0)
        XCTAssertNil(order.position(of: "bbbbbbb"), "ambiguous")
        XCTAssertEqual(order.position(of: "bbbbbbb3"), 2)
        XCTAssertNil(order.position(of: "aaaa"), "shorter than 7 digits")
        XCTAssertNil(order.position(of: "ccccccc"))
    }

    func testAFolderStandsForItsResultFilesOnly() throws {
        let run = try write(stamp: "20261124T010000Z", revision: "aaaaaaa11111")
        try "x".write(toFile: folder.appendingPathComponent("baseline-quick.csv").path, atomically: true, encoding: .utf8)
        try "x".write(toFile: folder.appendingPathComponent("resolution.csv").path, atomically: true, encoding: .utf8)
        XCTAssertEqual(try HistoryRuns.files(in: [folder.path]), [run])
        XCTAssertTrue(HistoryRuns.isRunFileName("20261128T074013Z-3bca9e58ac36-dirty.csv"))
        XCTAssertFalse(HistoryRuns.isRunFileName("20261128T074013Z-3bca9e58ac36-latency.png"))
    }

    func testRunsGoByCommitOrderAndAStrangerByItsTimestamp() throws {
        // Made in the order c, a, x (not in the history), b; committed a, b, c.
        let paths = [
            try write(stamp: "20261124T010000Z", revision: "ccccccc33333"),
            try write(stamp: "20261124T020000Z", revision: "aaaaaaa11111"),
            try write(stamp: "20261124T030000Z", revision: "fffffff99999"),
            try write(stamp: "20261124T040000Z", revision: "bbbbbbb22222"),
        ]
        let files = try paths.map { try ResultFile.load(path: $0) }
        let order = CommitOrder(commits: ["aaaaaaa11111", "bbbbbbb22222", "ccccccc33333"])
        let runs = HistoryRuns(files: files, order: order)
        // The stranger follows the latest run before it in time that is in the history (c).
        XCTAssertEqual(runs.runs.map { String($0.revision.prefix(1)) }, ["a", "b", "c", "f"])
        XCTAssertEqual(runs.notes.count, 1)
        XCTAssertTrue(runs.notes[0].contains("fffffff99999"), runs.notes[0])
        let byTime = HistoryRuns(files: files, order: nil, unavailable: "git could not be started")
        XCTAssertEqual(byTime.runs.map { String($0.revision.prefix(1)) }, ["c", "a", "f", "b"])
        XCTAssertEqual(byTime.notes, ["note: runs are ordered by their timestamps, not by commit order (git could not be started)"])
    }

    /// Without git (not installed, or a folder that is not a repository: a
    /// source archive) runs go by the commit order the folder's index
    /// records, a run it does not list by its timestamp; with no index, all
    /// by their timestamps. One note says which, and why.
    func testWithoutGitRunsGoByTheOrderTheIndexRecords() throws {
        // Made in the order c, a, x (listed nowhere), b; committed a, b, c.
        let paths = [
            try write(stamp: "20261124T010000Z", revision: "ccccccc33333"),
            try write(stamp: "20261124T020000Z", revision: "aaaaaaa11111"),
            try write(stamp: "20261124T030000Z", revision: "fffffff99999"),
            try write(stamp: "20261124T040000Z", revision: "bbbbbbb22222"),
        ]
        let files = try paths.map { try ResultFile.load(path: $0) }
        let byTime = HistoryTool.order(files, repository: folder.path)
        XCTAssertEqual(byTime.runs.map { String($0.revision.prefix(1)) }, ["c", "a", "f", "b"])
        XCTAssertEqual(byTime.notes.count, 1)
        XCTAssertTrue(byTime.notes[0].contains("not a git repository"), byTime.notes[0])

        let listed = CommittedRuns(runs: [
            .init(name: "20261124T020000Z-aaaaaaa11111.csv", commit: "aaaaaaa11111" + String(repeating: "0", count: 28)),
            .init(name: "20261124T040000Z-bbbbbbb22222.csv", commit: "bbbbbbb22222" + String(repeating: "0", count: 28)),
            .init(name: "20261124T010000Z-ccccccc33333.csv", commit: "ccccccc33333" + String(repeating: "0", count: 28)),
        ])
        try ("# results\n\n" + listed.markdown).write(
            to: folder.appendingPathComponent("README.md"), atomically: true, encoding: .utf8)
        for git in ["git", "git-not-installed-here"] {
            let recorded = HistoryTool.order(files, repository: folder.path, git: git)
            XCTAssertEqual(recorded.runs.map { String($0.revision.prefix(1)) }, ["a", "b", "c", "f"], git)
            XCTAssertEqual(recorded.notes.count, 2, "\(recorded.notes)")
            XCTAssertTrue(recorded.notes[0].contains("by the commit order \(folder.path)/README.md records"), recorded.notes[0])
            XCTAssertTrue(recorded.notes[0].contains(git == "git" ? "not a git repository" : "not installed"), recorded.notes[0])
            XCTAssertTrue(recorded.notes[1].contains("fffffff99999"), recorded.notes[1])
        }
    }

    func testUnusableInputIsExitStatusTwoWithAMessage() throws {
        let missing = HistoryTool.run(paths: [folder.appendingPathComponent("nope").path], options: HistoryOptions())
        XCTAssertEqual(missing.status, .unusableInput)
        XCTAssertTrue(missing.diagnostics.contains("no such file or folder"), missing.diagnostics)

        let empty = HistoryTool.run(paths: [folder.path], options: HistoryOptions())
        XCTAssertEqual(empty.status, .unusableInput)
        XCTAssertTrue(empty.diagnostics.contains("holds no result file"), empty.diagnostics)

        let broken = folder.appendingPathComponent("20261124T010000Z-aaaaaaa11111.csv").path
        try (Self.header + "\nr,t,aaaaaaa11111,vm,AMD,2,6,system,b,v,,m,ns,1,fast\n")
            .write(toFile: broken, atomically: true, encoding: .utf8)
        let malformed = HistoryTool.run(paths: [folder.path], options: HistoryOptions())
        XCTAssertEqual(malformed.status, .unusableInput)
        XCTAssertTrue(malformed.diagnostics.contains("\(broken):2: value \"fast\""), malformed.diagnostics)

        var badAlpha = HistoryOptions()
        badAlpha.judgement.alpha = 0.7
        XCTAssertEqual(HistoryTool.run(paths: [folder.path], options: badAlpha).status, .unusableInput)
    }

    /// Installs a catalogue of one benchmark `b` with a time and an allocation count.
    private static let catalog: Void = CSVSchema.useCatalog {
        [
            BenchmarkSchema(
                name: "b", variants: [VariantID(reading: "v")],
                metrics: [
                    Metric("ns_per_op", unit: "ns", kind: .measured, direction: .lowerIsBetter),
                    Metric("allocs_per_op", unit: "allocations", kind: .allocations, direction: .lowerIsBetter),
                ])
        ]
    }

    /// Writes a run with a time `ns` (five repetitions around it) and an allocation count `allocs`.
    @discardableResult
    private func writeRun(stamp: String, revision: String, ns: Double, allocs: Double, host: String = "vm") throws
        -> String
    {
        let iso = "2026-11-\(stamp.dropFirst(6).prefix(2))T\(stamp.dropFirst(9).prefix(2)):00:00Z"
        let prefix = "\(stamp)-\(revision),\(iso),\(revision),\(host),AMD EPYC,2,6.3.1"
        var lines = [Self.header]
        for (index, factor) in [0.99, 1.0, 1.01, 0.995, 1.005].enumerated() {
            lines.append("\(prefix),system,b,v,n=1,ns_per_op,ns,\(index + 1),\(ns * factor)")
        }
        lines.append("\(prefix),jemalloc,b,v,n=1,allocs_per_op,allocations,1,\(allocs)")
        let path = folder.appendingPathComponent("\(stamp)-\(revision).csv").path
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    private func report(order: [String]) throws -> HistoryReport {
        let files = try HistoryRuns.files(in: [folder.path]).map { try ResultFile.load(path: $0) }
        return HistoryReport(runs: HistoryRuns(files: files, order: CommitOrder(commits: order)), options: HistoryOptions())
    }

    private static let revisions = (0..<10).map { String(repeating: String($0), count: 12) }

    func testAnAllocationMoreAtTheNewestRunIsExitStatusOne() throws {
        Self.catalog
        for (index, revision) in Self.revisions.enumerated() {
            try writeRun(stamp: "20261124T0\(index)0000Z", revision: revision, ns: 20, allocs: index == 9 ? 2 : 1)
        }
        let report = try report(order: Self.revisions)
        XCTAssertEqual(report.entries.count, 2)
        XCTAssertEqual(report.exitStatus, .regression)
        let allocations = try XCTUnwrap(report.entries.first { $0.series.key.metric == "allocs_per_op" })
        XCTAssertEqual(allocations.changePoints.map(\.evidence), [.exact])
        XCTAssertEqual(allocations.changePoints.first?.revisionBefore, Self.revisions[8])
        XCTAssertTrue(report.isAtNewestRun(try XCTUnwrap(allocations.changePoints.first), of: allocations))
        let text = HistoryFormatter(report: report, alpha: 0.05).table()
        XCTAssertTrue(text.contains("8888888..9999999"), text)
        XCTAssertTrue(text.contains("Regression at the newest run: b/v n=1 allocs_per_op [jemalloc]"), text)
        XCTAssertTrue(text.hasSuffix("exit status 1.\n"), text)
    }

    func testATimeTwiceAsLongInOneNewestRunIsExitStatusThreeAndAConfirmedStepIsNot() throws {
        Self.catalog
        for (index, revision) in Self.revisions.enumerated() {
            try writeRun(stamp: "20261124T0\(index)0000Z", revision: revision, ns: index == 9 ? 40 : 20, allocs: 1)
        }
        XCTAssertEqual(try report(order: Self.revisions).exitStatus, .notJudged)
        // Two more runs of the newest revision: three against nine runs confirm it.
        try writeRun(stamp: "20261124T091000Z", revision: Self.revisions[9], ns: 41, allocs: 1)
        try writeRun(stamp: "20261124T092000Z", revision: Self.revisions[9], ns: 39, allocs: 1)
        let confirmed = try report(order: Self.revisions)
        XCTAssertEqual(confirmed.exitStatus, .regression)
        let time = try XCTUnwrap(confirmed.entries.first { $0.series.key.metric == "ns_per_op" })
        XCTAssertEqual(time.changePoints.map(\.evidence), [.confirmed])
        XCTAssertEqual(time.changePoints.first.map { $0.runsBefore + $0.runsAfter }, 12)
    }

    func testCSVAndJSONCarryEveryChangePoint() throws {
        Self.catalog
        for (index, revision) in Self.revisions.enumerated() {
            try writeRun(stamp: "20261124T0\(index)0000Z", revision: revision, ns: index >= 5 ? 30 : 20, allocs: 1)
        }
        let report = try report(order: Self.revisions)
        let formatter = HistoryFormatter(report: report, alpha: 0.05)
        let csv = formatter.csv().split(separator: "\n")
        XCTAssertEqual(csv.count, 2)
        XCTAssertTrue(csv[1].hasPrefix("b,v,n=1,ns_per_op,system,\"vm, AMD EPYC, 2 cores\",ns,444444444444,555555555555,"), String(csv[1]))
        let json = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(formatter.json().utf8)) as? [String: Any])
        let series = try XCTUnwrap(json["series"] as? [[String: Any]])
        XCTAssertEqual(series.count, 2)
        XCTAssertEqual(json["exitStatus"] as? Int, 0)
        let time = try XCTUnwrap(series.first { $0["metric"] as? String == "ns_per_op" })
        XCTAssertEqual((time["points"] as? [Any])?.count, 10)
        XCTAssertEqual((time["changePoints"] as? [[String: Any]])?.first?["revisionAfter"] as? String, Self.revisions[5])
    }

    func testMachinesAreKeptApart() throws {
        Self.catalog
        try writeRun(stamp: "20261124T010000Z", revision: Self.revisions[0], ns: 20, allocs: 1, host: "one")
        try writeRun(stamp: "20261124T020000Z", revision: Self.revisions[1], ns: 20, allocs: 1, host: "two")
        try writeRun(stamp: "20261124T030000Z", revision: Self.revisions[2], ns: 20, allocs: 2, host: "one")
        let report = try report(order: Self.revisions)
        XCTAssertEqual(report.machines, ["one, AMD EPYC, 2 cores", "two, AMD EPYC, 2 cores"])
        XCTAssertEqual(report.entries.count, 4)
        let counts = report.entries.filter { $0.series.key.metric == "allocs_per_op" }
        XCTAssertEqual(counts.map { $0.series.points.map(\.revision) }, [[Self.revisions[0], Self.revisions[2]], [Self.revisions[1]]])
        XCTAssertEqual(counts.map(\.changePoints.count), [1, 0])
        var onlyTwo = HistoryOptions()
        onlyTwo.machine = "two"
        let files = try HistoryRuns.files(in: [folder.path]).map { try ResultFile.load(path: $0) }
        let filtered = HistoryReport(runs: HistoryRuns(files: files, order: CommitOrder(commits: Self.revisions)), options: onlyTwo)
        XCTAssertEqual(filtered.runCount, 1)
    }
}

/// The documentation region that shows what `history` prints.
final class HistoryRegionDirectiveTests: XCTestCase {
    func testAHistoryRegionNamesItsFiltersAndTheNewestRun() throws {
        let parsed = try ReportDirective.parse("history filter=trampoline,elementPath until=20261128T092112Z").get()
        XCTAssertEqual(parsed.directive, .history(filters: ["trampoline", "elementPath"], until: "20261128T092112Z"))
        XCTAssertNil(parsed.source)
    }

    func testAHistoryRegionWithoutItsNewestRunOrWithASourceIsRefused() {
        guard case .failure(let missing) = ReportDirective.parse("history filter=trampoline") else {
            return XCTFail("a region without until= was read")
        }
        XCTAssertTrue(missing.message.contains("until=STAMP"), missing.message)
        guard case .failure(let source) = ReportDirective.parse("history until=20261128T092112Z source=results/a.csv")
        else { return XCTFail("a region with source= was read") }
        XCTAssertTrue(source.message.contains("takes no source="), source.message)
    }
}

/// The static page: self-contained, and refused with a message when plotly.js is missing.
final class HistoryPageTests: XCTestCase {
    func testThePageLoadsOnlyFilesBesideIt() {
        let sources = HistoryPage.html.components(separatedBy: "src=\"").dropFirst().map { $0.prefix { $0 != "\"" } }
        XCTAssertEqual(sources, [Substring(HistoryPage.plotlyFileName), Substring(HistoryPage.dataFileName)])
        XCTAssertFalse(HistoryPage.html.contains("http://"))
        XCTAssertFalse(HistoryPage.html.contains("https://"))
        XCTAssertFalse(HistoryPage.html.contains("fetch("))
    }

    func testAMissingPlotlyIsUnusableInputNamingWhatToDo() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("history-page-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let run = folder.appendingPathComponent("20261124T010000Z-aaaaaaa11111.csv")
        try "run_id,git_rev,benchmark,variant,params,metric,unit,repetition,value\nr,aaaaaaa11111,b,v,,m,ns,1,1\n"
            .write(to: run, atomically: true, encoding: .utf8)
        var options = HistoryOptions()
        options.htmlDirectory = folder.appendingPathComponent("page").path
        options.plotlyJS = folder.appendingPathComponent("missing.js").path
        let report = HistoryReport(
            runs: HistoryRuns(files: [try ResultFile.load(path: run.path)], order: nil), options: options)
        XCTAssertThrowsError(
            try HistoryPageWriter.write(
                report: report, runs: HistoryRuns(files: [], order: nil), options: options,
                directory: options.htmlDirectory ?? "")
        ) { error in
            XCTAssertTrue("\(error)".contains("missing.js: no such file (give plotly.min.js with --plotly-js PATH)"), "\(error)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: options.htmlDirectory ?? ""))
    }

    func testThePageAndItsDataAreWrittenBesidePlotly() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("history-page-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let plotly = folder.appendingPathComponent("plotly-stand-in.js")
        try "/* plotly */".write(to: plotly, atomically: true, encoding: .utf8)
        var options = HistoryOptions()
        options.plotlyJS = plotly.path
        let report = HistoryReport(runs: HistoryRuns(files: [], order: nil), options: options)
        let line = try HistoryPageWriter.write(
            report: report, runs: HistoryRuns(files: [], order: nil), options: options,
            directory: folder.appendingPathComponent("page").path)
        XCTAssertTrue(line.hasPrefix("wrote "), line)
        let page = folder.appendingPathComponent("page")
        XCTAssertEqual(
            try String(contentsOf: page.appendingPathComponent("plotly.min.js"), encoding: .utf8), "/* plotly */")
        let data = try String(contentsOf: page.appendingPathComponent("history-data.js"), encoding: .utf8)
        let lines = data.split(separator: "\n")
        XCTAssertEqual(lines.count, 2)
        XCTAssertTrue(lines[0].hasPrefix("window.HISTORY = {") && lines[0].hasSuffix("};"))
        let json = lines[0].dropFirst("window.HISTORY = ".count).dropLast()
        let parsed = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        XCTAssertEqual(parsed["runs"] as? Int, 0)
        XCTAssertTrue(FileManager.default.fileExists(atPath: page.appendingPathComponent("index.html").path))
    }
}

/// The Stress results CSV the page's outcome tables come from.
final class StressOutcomesTests: XCTestCase {
    private func file(_ text: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("stress-\(UUID().uuidString).csv").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
        return path
    }

    func testEachScenarioKeepsItsOutcomesInOrder() throws {
        let path = try file(
            """
            seed,scenario,guarantees,iterations,seconds,live_at_end,verdict,outcome,grade,count
            7,dispose-vs-action.serial,G1,1000,0.5,0,OK,ran,ACCEPTABLE,600
            7,dispose-vs-action.serial,G1,1000,0.5,0,OK,skipped,ACCEPTABLE,400
            7,serial-disposable,G2,1000,0.2,0,OK,disposed-once,ACCEPTABLE,1000

            """)
        let outcomes = try StressOutcomes.load(path: path)
        XCTAssertEqual(outcomes.scenarios.map(\.name), ["dispose-vs-action.serial", "serial-disposable"])
        XCTAssertEqual(outcomes.scenarios[0].outcomes.map(\.count), [600, 400])
        XCTAssertEqual(outcomes.scenarios[0].iterations, "1000")
        XCTAssertEqual(outcomes.scenarios[1].outcomes.first?.outcome, "disposed-once")
    }

    func testAFileThatIsNotStresssIsRefusedNamingTheProblem() throws {
        let result = try file("benchmark,variant\nb,v\n")
        XCTAssertThrowsError(try StressOutcomes.load(path: result)) { error in
            XCTAssertTrue("\(error)".contains("header lacks scenario, verdict, outcome, grade, count"), "\(error)")
        }
        let badCount = try file("scenario,verdict,outcome,grade,count\ns,OK,ran,ACCEPTABLE,many\n")
        XCTAssertThrowsError(try StressOutcomes.load(path: badCount)) { error in
            XCTAssertTrue("\(error)".contains(":2: count \"many\" is not a whole number"), "\(error)")
        }
    }
}
