@testable import BenchAnalysis
import BenchKit
import Foundation
import Testing

/// `BenchRunner report`: the documentation's figures are generated from
/// committed runs, and a region that no longer matches its run is found.
@Suite struct ReportRegionTests {
    init() {
        StandardCatalog.install()
    }

    /// The repository's root, found from this file's path.
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    // MARK: Fixtures

    static let csv = """
        run_id,timestamp,git_rev,host,cpu,cores,swift_version,allocator,benchmark,variant,params,metric,unit,repetition,value
        r,t,g,h,c,2,6,system,hop,fast,n=1,rate,elements/s,1,100
        r,t,g,h,c,2,6,system,hop,fast,n=1,rate,elements/s,2,300
        r,t,g,h,c,2,6,system,hop,fast,n=1,rate,elements/s,3,200
        r,t,g,h,c,2,6,jemalloc,hop,fast,n=1,allocs,allocs,1,0.5
        r,t,g,h,c,2,6,system,hop,peer,n=1,rate,elements/s,1,50
        r,t,g,h,c,2,6,system,hop,peer,n=1,rate,elements/s,2,50
        r,t,g,h,c,2,6,system,hop,peer,n=1,rate,elements/s,3,50
        r,t,g,h,c,2,6,jemalloc,hop,peer,n=1,allocs,allocs,1,2
        r,t,g,h,c,2,6,system,hop,fast,n=2,rate,elements/s,1,7
        r,t,g,h,c,2,6,system,hop,fast,n=2;tick=1,rate,elements/s,1,9
        """

    /// A scratch repository holding `results/run.csv` and `docs/Doc.md`.
    static func repository(doc: String, csv: String = csv) throws -> URL {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("report-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("results"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: root.appendingPathComponent("docs"), withIntermediateDirectories: true)
        try csv.write(to: root.appendingPathComponent("results/run.csv"), atomically: true, encoding: .utf8)
        try doc.write(to: root.appendingPathComponent("docs/Doc.md"), atomically: true, encoding: .utf8)
        return root
    }

    static func read(_ root: URL) throws -> String {
        try String(contentsOf: root.appendingPathComponent("docs/Doc.md"), encoding: .utf8)
    }

    // MARK: Rendering

    @Test func aTableShowsMediansRatiosAndTheRunAndCheckThenPasses() throws {
        let root = try Self.repository(doc: """
            # Doc
            <!-- report-source: results/run.csv -->
            <!-- report:table hop variants=fast,peer params=n=1 metrics=rate,allocs ratio-to=peer -->
            old text
            <!-- /report -->
            after
            """)
        #expect(ReportTool.run(root: root.path, check: true).status == 1, "the old text is stale")
        let outcome = ReportTool.run(root: root.path, check: false)
        #expect(outcome.status == 0, "\(outcome.diagnostics)")
        #expect(try Self.read(root) == """
            # Doc
            <!-- report-source: results/run.csv -->
            <!-- report:table hop variants=fast,peer params=n=1 metrics=rate,allocs ratio-to=peer -->
            | variant | rate | × peer | allocs |
            |---|---:|---:|---:|
            | `fast` | 200 | 4 | 0.5 |
            | `peer` | 50 | 1 | 2 |

            Medians of 3 repetitions in `results/run.csv`.
            <!-- /report -->
            after
            """)
        #expect(ReportTool.run(root: root.path, check: true).status == 0)
    }

    static let sweepCSV = """
        run_id,timestamp,git_rev,host,cpu,cores,swift_version,allocator,benchmark,variant,params,metric,unit,repetition,value
        r,t,g,h,c,2,6,system,scale.x,lib,phase=run;n=10,ns_per_op,ns,1,100
        r,t,g,h,c,2,6,system,scale.x,lib,phase=run;n=10,ns_per_op,ns,2,300
        r,t,g,h,c,2,6,system,scale.x,lib,phase=run;n=10,ns_per_op,ns,3,200
        r,t,g,h,c,2,6,system,scale.x,lib,phase=run;n=1000,ns_per_op,ns,1,20000
        r,t,g,h,c,2,6,system,scale.x,lib,phase=run;n=1000,ns_per_op,ns,2,40000
        r,t,g,h,c,2,6,system,scale.x,lib,phase=run;n=1000,ns_per_op,ns,3,30000
        r,t,g,h,c,2,6,system,scale.x,lib,phase=run;of=ns_per_op;range=10-1000,growth_exponent,exponent,1,0.9
        r,t,g,h,c,2,6,system,scale.x,lib,phase=run;of=ns_per_op;range=10-1000,growth_exponent,exponent,2,-0.2
        r,t,g,h,c,2,6,system,scale.x,lib,phase=run;of=ns_per_op;range=10-1000,growth_exponent,exponent,3,0.456
        r,t,g,h,c,2,6,system,scale.x,lib,phase=schedule;n=10,ns_per_op,ns,1,5
        r,t,g,h,c,2,6,system,scale.x,peer,phase=run;n=10,ns_per_op,ns,1,70
        r,t,g,h,c,2,6,jemalloc,scale.x,lib,phase=run;n=10,allocs_per_op,allocations,1,1
        r,t,g,h,c,2,6,jemalloc,scale.x,lib,phase=run;n=1000,allocs_per_op,allocations,1,1
        r,t,g,h,c,2,6,jemalloc,scale.x,lib,phase=run;of=allocs_per_op;range=10-1000,allocs_growth_exponent,exponent,1,-0.001
        """

    @Test func aSweepShowsAColumnPerPointAndTheMedianOfTheRepetitionsFits() throws {
        let root = try Self.repository(
            doc: """
                <!-- report-source: results/run.csv -->
                <!-- report:sweep scale.x ns_per_op params=phase=run -->
                <!-- /report -->
                <!-- report:sweep scale.x allocs_per_op variants=lib -->
                <!-- /report -->
                """, csv: Self.sweepCSV)
        let outcome = ReportTool.run(root: root.path, check: false)
        #expect(outcome.status == 0, "\(outcome.diagnostics)")
        #expect(try Self.read(root) == """
            <!-- report-source: results/run.csv -->
            <!-- report:sweep scale.x ns_per_op params=phase=run -->
            | variant | N=10 | N=1,000 | exponent |
            |---|---:|---:|---:|
            | `lib` | 200 | 30k | 0.46 |
            | `peer` | 70 | – | – |

            Medians of 3 repetitions in `results/run.csv`; exponent: the median of the repetitions' own fits.
            <!-- /report -->
            <!-- report:sweep scale.x allocs_per_op variants=lib -->
            | variant | N=10 | N=1,000 | exponent |
            |---|---:|---:|---:|
            | `lib` | 1 | 1 | 0.00 |

            Medians of 1 repetitions in `results/run.csv`; exponent: the median of the repetitions' own fits.
            <!-- /report -->
            """)
        #expect(ReportTool.run(root: root.path, check: true).status == 0)
    }

    @Test func aSweepWithSeveralSeriesAtOnePointOrAnUnknownVariantIsRefused() throws {
        /// Renders one sweep region over the sweep fixture: the status and what was printed.
        func render(_ directive: String) throws -> (status: Int32, diagnostics: String) {
            let root = try Self.repository(
                doc: "<!-- report-source: results/run.csv -->\n<!-- \(directive) -->\n<!-- /report -->\n",
                csv: Self.sweepCSV)
            let outcome = ReportTool.run(root: root.path, check: false)
            return (outcome.status, outcome.diagnostics)
        }
        let ambiguous = try render("report:sweep scale.x ns_per_op variants=lib")
        #expect(ambiguous.status == 2)
        #expect(ambiguous.diagnostics.contains("docs/Doc.md:2: scale.x/lib ns_per_op at n=10 has several series"))
        let unknown = try render("report:sweep scale.x ns_per_op variants=nope params=phase=run")
        #expect(unknown.status == 2)
        #expect(unknown.diagnostics.contains("has no scale.x/nope ns_per_op points (its variants: lib, peer)"))
        #expect(try render("report:sweep scale.x ns_per_op metrics=ns_per_op").diagnostics.contains("it takes no metrics="))
    }

    /// Regenerates a document holding one region, `directive`, over `csv`: the document after.
    static func rendered(_ directive: String, csv: String = csv) throws -> String {
        let root = try repository(
            doc: "<!-- report-source: results/run.csv -->\n<!-- \(directive) -->\n<!-- /report -->\n", csv: csv)
        let outcome = ReportTool.run(root: root.path, check: false)
        #expect(outcome.status == 0, "\(outcome.diagnostics)")
        return try read(root)
    }

    @Test func aVariantWithSeveralParameterSetsShowsThemAndPerTickSamplesAreLeftOut() throws {
        let text = try Self.rendered("report:table hop variants=fast metrics=rate")
        #expect(text.contains("| `fast` [n=1] | 200 |"))
        #expect(text.contains("| `fast` [n=2] | 7 |"))
        #expect(!text.contains("tick=1"))
    }

    @Test func aParameterSetThatMeasuredNoneOfTheMetricsMakesNoRow() throws {
        // A default run also holds the counting pass's rows: another parameter set, other metrics.
        let counted = Self.csv + "\nr,t,g,h,c,2,6,callgrind,hop,fast,operations=10,instructions,instructions,1,740"
        let timed = try Self.rendered("report:table hop variants=fast metrics=rate", csv: counted)
        #expect(timed.contains("| `fast` [n=1] | 200 |"))
        #expect(!timed.contains("operations=10"), "\(timed)")
        // Asked for, the counted metric is shown, and only its own parameter set.
        let instructions = try Self.rendered("report:table hop variants=fast metrics=instructions", csv: counted)
        #expect(instructions.contains("| `fast` | 740 |"), "\(instructions)")
    }

    @Test func anInlineValueIsRegeneratedInItsLine() throws {
        let root = try Self.repository(doc: """
            <!-- report-source: results/run.csv -->
            The peer moved <!-- report:value hop/peer rate params=n=1 -->12<!-- /report --> elements/s, in prose.
            """)
        #expect(ReportTool.run(root: root.path, check: true).status == 1)
        #expect(ReportTool.run(root: root.path, check: false).status == 0)
        #expect(try Self.read(root).contains("The peer moved <!-- report:value hop/peer rate params=n=1 -->50<!-- /report --> elements/s, in prose."))
    }

    @Test func aPairedRatioPairsTheRepetitionsAndShowsItsInterval() throws {
        // The machine's level moves by repetition; `fast` is 10 % ahead in
        // every one. Repetition 7 of `fast` has no partner; `peer`'s
        // repetitions come in another order than `fast`'s.
        var csv = "run_id,timestamp,git_rev,host,cpu,cores,swift_version,allocator,benchmark,variant,params,metric,unit,repetition,value\n"
        let levels = [1.0, 3.0, 1.5, 2.5, 1.2, 2.0]
        for (index, level) in levels.enumerated() {
            csv += "r,t,g,h,c,2,6,system,hop,fast,n=1,rate,elements/s,\(index + 1),\(110 / level)\n"
        }
        csv += "r,t,g,h,c,2,6,system,hop,fast,n=1,rate,elements/s,7,999\n"
        for (index, level) in levels.enumerated().reversed() {
            csv += "r,t,g,h,c,2,6,system,hop,peer,n=1,rate,elements/s,\(index + 1),\(100 / level)\n"
        }
        let root = try Self.repository(
            doc: """
                <!-- report-source: results/run.csv -->
                Ahead by <!-- report:paired hop fast peer rate -->?<!-- /report --> in every pair.
                """,
            csv: csv)
        #expect(ReportTool.run(root: root.path, check: true).status == 1)
        #expect(ReportTool.run(root: root.path, check: false).status == 0)
        #expect(
            try Self.read(root).contains(
                "Ahead by <!-- report:paired hop fast peer rate -->1.100× (95 % interval 1.100× to 1.100×, 6 pairs)<!-- /report --> in every pair."))
        #expect(ReportTool.run(root: root.path, check: true).status == 0)
    }

    @Test func aPairedRatioWithTooFewPairsOrWithoutRepetitionsIsRefused() throws {
        let source = "<!-- report-source: results/run.csv -->\n"
        #expect(
            try Self.error(for: source + "x <!-- report:paired hop fast peer rate params=n=1 --><!-- /report -->\n")
                .contains("docs/Doc.md:2: fast and peer share 3 repetitions in results/run.csv, too few for a 95 % interval (6 at least)"))
        #expect(
            try Self.error(for: source + "x <!-- report:paired hop fast peer --><!-- /report -->\n")
                .contains("docs/Doc.md:2: report:paired takes BENCHMARK FIRST SECOND METRIC"))
        #expect(
            try Self.error(
                for: source + "x <!-- report:paired hop fast peer rate --><!-- /report -->\n",
                csv: "benchmark,variant,params,metric,unit,value\nhop,fast,,rate,e,1\nhop,peer,,rate,e,1\n")
                .contains("hop/fast rate in results/run.csv has no repetition numbers to pair its values by"))
    }

    @Test func markersInsideACodeFenceAreText() throws {
        let doc = """
            ```
            <!-- report:table nothing metrics=none -->
            <!-- /report -->
            ```
            """
        let root = try Self.repository(doc: doc)
        #expect(ReportTool.run(root: root.path, check: false).status == 0)
        #expect(try Self.read(root) == doc)
    }

    @Test func pointingTheDocumentsAtAnotherRunRewritesTheSourceAndTheFigures() throws {
        let root = try Self.repository(doc: """
            <!-- report-source: results/old.csv -->
            Peer: <!-- report:value hop/peer rate params=n=1 -->12<!-- /report -->
            """)
        let outcome = ReportTool.run(root: root.path, newSource: root.appendingPathComponent("results/run.csv").path, check: false)
        #expect(outcome.status == 0, "\(outcome.diagnostics)")
        #expect(try Self.read(root) == """
            <!-- report-source: results/run.csv -->
            Peer: <!-- report:value hop/peer rate params=n=1 -->50<!-- /report -->
            """)
    }

    /// A region naming its own run (`source=`, e.g. an example package's
    /// results) shows that run, needs no `report-source`, is checked like any
    /// other, and is not re-pointed when the documents move to a new run.
    @Test func aRegionNamingItsOwnRunShowsItAndKeepsItWhenTheDocumentsMove() throws {
        let root = try Self.repository(doc: """
            <!-- report-source: results/old.csv -->
            Peer: <!-- report:value hop/peer rate params=n=1 -->12<!-- /report -->
            Own: <!-- report:value hop/fast rate params=n=1 source=Examples/E/results/own.csv -->12<!-- /report -->
            """)
        let own = root.appendingPathComponent("Examples/E/results")
        try FileManager.default.createDirectory(at: own, withIntermediateDirectories: true)
        try Self.csv.replacingOccurrences(of: ",100\n", with: ",400\n")
            .write(to: own.appendingPathComponent("own.csv"), atomically: true, encoding: .utf8)
        let moved = ReportTool.run(root: root.path, newSource: root.appendingPathComponent("results/run.csv").path, check: false)
        #expect(moved.status == 0, "\(moved.diagnostics)")
        let expected = """
            <!-- report-source: results/run.csv -->
            Peer: <!-- report:value hop/peer rate params=n=1 -->50<!-- /report -->
            Own: <!-- report:value hop/fast rate params=n=1 source=Examples/E/results/own.csv -->300<!-- /report -->
            """
        #expect(try Self.read(root) == expected, "median of 400, 300, 200 from its own run")
        #expect(ReportTool.run(root: root.path, check: true).status == 0)
        // A figure typed over the generated one is stale.
        try expected.replacingOccurrences(of: "-->300<", with: "-->301<")
            .write(to: root.appendingPathComponent("docs/Doc.md"), atomically: true, encoding: .utf8)
        let check = ReportTool.run(root: root.path, check: true)
        #expect(check.status == 1)
        #expect(check.output.contains("docs/Doc.md:3: stale"), "\(check.output)")
    }

    // MARK: Bad input

    /// Runs the report on `doc` and returns its error message; the document must stay as it was.
    static func error(for doc: String, csv: String = csv) throws -> String {
        let root = try repository(doc: doc, csv: csv)
        let outcome = ReportTool.run(root: root.path, check: false)
        #expect(outcome.status == 2)
        #expect(try read(root) == doc, "a failed report changes nothing")
        return outcome.diagnostics
    }

    @Test func badRegionsAndRunsGetAnErrorNamingTheFileAndLine() throws {
        let source = "<!-- report-source: results/run.csv -->\n"
        #expect(
            try Self.error(for: source + "<!-- report:table hop variants=slow metrics=rate -->\n<!-- /report -->\n")
                .contains("docs/Doc.md:2: the run results/run.csv has no hop/slow (its variants with these params: fast, peer)"))
        #expect(
            try Self.error(for: source + "<!-- report:table hop metrics=speed -->\n<!-- /report -->\n")
                .contains("docs/Doc.md:2: hop has no metric speed in results/run.csv (it has allocs, rate)"))
        #expect(
            try Self.error(for: source + "<!-- report:table other metrics=rate -->\n<!-- /report -->\n")
                .contains("has no benchmark other (it has hop)"))
        #expect(
            try Self.error(for: source + "x <!-- report:value hop/fast rate --> 1 <!-- /report -->\n")
                .contains("docs/Doc.md:2: hop/fast has 2 parameter sets in the run (n=1 | n=2): pick one with params="))
        #expect(
            try Self.error(for: source + "<!-- report:table hop metrics=rate -->\nno end\n")
                .contains("docs/Doc.md:2: the region opened here is never closed: add <!-- /report -->"))
        #expect(
            try Self.error(for: source + "<!-- report:chart hop -->\n<!-- /report -->\n")
                .contains("docs/Doc.md:2: unknown kind report:chart (kinds: table, value, paired, sweep, compare, history)"))
        #expect(
            try Self.error(for: "<!-- report:table hop metrics=rate -->\n<!-- /report -->\n")
                .contains("docs/Doc.md:1: this region needs the run it comes from: add <!-- report-source: results/<run>.csv -->"))
        #expect(
            try Self.error(for: "<!-- report-source: results/gone.csv -->\n<!-- report:table hop metrics=rate -->\n<!-- /report -->\n")
                .contains("results/gone.csv: no such result file"))
        #expect(
            try Self.error(
                for: source + "<!-- report:table hop metrics=rate -->\n<!-- /report -->\n",
                csv: "benchmark,variant\nhop,fast\n")
                .contains("results/run.csv:1: header lacks the columns params, metric, value"))
        #expect(
            try Self.error(for: source + "<!-- /report -->\n").contains("docs/Doc.md:2: <!-- /report --> closes no region"))
        #expect(
            try Self.error(for: "x <!-- report:value hop/fast rate params=n=1 source=results/gone.csv --><!-- /report -->\n")
                .contains("results/gone.csv: no such result file"))
        #expect(
            try Self.error(for: "<!-- report:compare results/run.csv results/run.csv source=results/run.csv -->\n<!-- /report -->\n")
                .contains("docs/Doc.md:1: report:compare names its two runs itself; it takes no source="))
        #expect(
            try Self.error(
                for: "<!-- report:compare results/run.csv results/run.csv resolution=results/gone.csv -->\n<!-- /report -->\n")
                .contains("docs/Doc.md:1: results/gone.csv: no such resolution table"))
        #expect(
            try Self.error(for: source + "<!-- report:table hop metrics=rate resolution=none -->\n<!-- /report -->\n")
                .contains("docs/Doc.md:2: resolution= belongs to report:compare only"))
        #expect(
            try Self.error(for: source + "<!-- report:value hop/peer rate params=n=1 -->50<!-- /report --> a line\n")
                .contains("docs/Doc.md:2: an inline region must not begin a line"))
    }

    @Test func checkTakesNoResultFile() {
        let outcome = ReportTool.run(root: Self.root.path, newSource: "results/x.csv", check: true)
        #expect(outcome.status == 2)
        #expect(outcome.diagnostics.contains("--check checks the runs the documents name"))
    }
}
