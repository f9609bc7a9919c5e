/// The core of `BenchRunner compare BASE.csv NEW.csv`: reads both files,
/// compares every series and formats the report. The command-line type only
/// parses options and prints what this returns.
///
/// Never answers silently: unusable input yields a message naming the file
/// and line, and exit status 2. Every other exit status is the one
/// ``ComparisonReport/exitStatus`` gives (docs/Compare.md, "The verdict table").
package enum CompareTool {
    /// Compares the result files at `basePath` and `newPath` under `options`.
    package static func run(basePath: String, newPath: String, options: CompareOptions) -> CompareOutcome {
        let unusable = VerdictTable.exitStatus(for: VerdictTable.RunEvidence(inputUsable: false))
        if let problem = options.problem {
            return CompareOutcome(status: unusable, output: "", diagnostics: "error: \(problem)\n", report: nil)
        }
        let report: ComparisonReport
        do {
            let base = try ResultFile.load(path: basePath)
            let new = try ResultFile.load(path: newPath)
            report = try ComparisonReport(base: base, new: new, options: options)
        } catch {
            return CompareOutcome(status: unusable, output: "", diagnostics: "error: \(error)\n", report: nil)
        }
        let formatter = CompareReportFormatter(report: report)
        switch options.format {
        case .table:
            return CompareOutcome(
                status: report.exitStatus, output: formatter.table() + "\n" + formatter.summary(), diagnostics: "",
                report: report)
        case .markdown:
            return CompareOutcome(
                status: report.exitStatus, output: formatter.markdown() + "\n" + formatter.markdownSummary(),
                diagnostics: "", report: report)
        case .csv:
            return CompareOutcome(
                status: report.exitStatus, output: formatter.csv(), diagnostics: formatter.summary(), report: report)
        }
    }
}
