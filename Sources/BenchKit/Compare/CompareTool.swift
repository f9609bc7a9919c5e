/// The core of `BenchRunner compare BASE.csv NEW.csv`: reads both files,
/// compares every series and formats the report. The command-line type only
/// parses options and prints what this returns.
///
/// Keeps the compare contract the README states (medians, change, rank test,
/// verdict, threshold, exit 1 on a regression and 2 on unusable input;
/// allocation counts compared exactly), and never answers silently: unusable
/// input yields a message naming the file and line.
public enum CompareTool {
    /// Compares the files at `basePath` and `newPath`.
    public static func run(basePath: String, newPath: String, options: CompareOptions) -> CompareOutcome {
        if let problem = options.problem {
            return CompareOutcome(
                status: .unusableInput, output: "", diagnostics: "error: \(problem)\n", report: nil)
        }
        let report: ComparisonReport
        let growth: GrowthComparison
        do {
            let base = try ResultFile.load(path: basePath)
            let new = try ResultFile.load(path: newPath)
            report = try ComparisonReport(base: base, new: new, options: options)
            growth = GrowthComparison(base: base, new: new, threshold: options.threshold)
        } catch {
            return CompareOutcome(
                status: .unusableInput, output: "", diagnostics: "error: \(error)\n", report: nil)
        }
        let formatter = CompareReportFormatter(report: report)
        var output: String
        var diagnostics = ""
        switch options.format {
        case .table:
            output = formatter.table() + "\n" + formatter.summary()
        case .markdown:
            output = formatter.markdown() + "\n" + formatter.markdownSummary()
        case .csv:
            output = formatter.csv()
            diagnostics = formatter.summary()
        }
        // Scale sweeps: growth changed / one point moved (GrowthComparison).
        if options.format == .csv { diagnostics += growth.text() } else { output += growth.text() }
        let status = growth.hasWorseGrowth && options.gate == .all ? CompareExitStatus.regression : report.exitStatus
        return CompareOutcome(status: status, output: output, diagnostics: diagnostics, report: report)
    }
}
