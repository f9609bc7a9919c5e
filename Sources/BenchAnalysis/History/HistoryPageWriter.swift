import Foundation
import ToolSupport

/// Writes ``HistoryPage`` into a folder: `index.html`, `history-data.js` and
/// a copy of plotly.js, so the page opens from `file://` with no network.
package enum HistoryPageWriter {
    /// A page that could not be written: what went wrong and what to do.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Writes the page of `report` into `directory` (made if missing) and
    /// returns a line naming it. plotly.js comes from `options.plotlyJS`
    /// or, without it, from the `plotly` Python package (`pip install plotly`).
    static func write(
        report: HistoryReport, runs: HistoryRuns, options: HistoryOptions, directory: String
    ) throws(Failure) -> String {
        let plotly: String
        if let given = options.plotlyJS {
            plotly = given
        } else {
            plotly = try installedPlotly()
        }
        guard FileManager.default.fileExists(atPath: plotly) else {
            throw Failure(description: "\(plotly): no such file (give plotly.min.js with --plotly-js PATH)")
        }
        let kept = runs.runs.filter { run in options.machine.map { run.file.facts.machine.contains($0) } ?? true }
        let newest = kept.last?.file
        let previous = newest.flatMap { newest in
            let keys = Set(newest.series.map(\.key))
            return kept.dropLast().last { run in
                run.file.facts.machine == newest.facts.machine
                    && run.file.series.filter { keys.contains($0.key) }.count * 2 >= keys.count
            }?.file
        }
        var page = HistoryPage(report: report, newest: newest, previous: previous, alpha: options.alpha)
        if let stress = options.stressCSV {
            do throws(CompareInputError) {
                page.stress = try StressOutcomes.load(path: stress)
            } catch {
                throw Failure(description: error.description)
            }
        }
        let folder = URL(fileURLWithPath: directory)
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try HistoryPage.html.write(to: folder.appendingPathComponent("index.html"), atomically: true, encoding: .utf8)
            try page.dataScript(runs: runs).write(
                to: folder.appendingPathComponent(HistoryPage.dataFileName), atomically: true, encoding: .utf8)
            let target = folder.appendingPathComponent(HistoryPage.plotlyFileName)
            try? FileManager.default.removeItem(at: target)
            try FileManager.default.copyItem(at: URL(fileURLWithPath: plotly), to: target)
        } catch {
            throw Failure(description: "\(directory): the page could not be written (\(error.localizedDescription))")
        }
        return "wrote \(folder.appendingPathComponent("index.html").path) (with \(HistoryPage.dataFileName) and "
            + "\(HistoryPage.plotlyFileName) beside it)\n"
    }

    /// The plotly.min.js of the `plotly` Python package python3 imports.
    static func installedPlotly() throws(Failure) -> String {
        let missing = Failure(
            description: "plotly.js not found: install plotly's Python package (pip install plotly), "
                + "or give plotly.min.js with --plotly-js PATH")
        let script = "import os, plotly; print(os.path.join(os.path.dirname(plotly.__file__), 'package_data', 'plotly.min.js'))"
        guard let outcome = ExternalCommand.run(["python3", "-c", script]), outcome.status == 0 else { throw missing }
        let path = outcome.output.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !path.isEmpty, FileManager.default.fileExists(atPath: path) else { throw missing }
        return path
    }
}
