/// What one `BenchRunner compare` invocation produces: the text for standard
/// output, the text for standard error and the exit status. Returned rather
/// than printed so tests can check all three without ending the process.
package struct CompareOutcome: Sendable {
    /// The exit status (docs/Compare.md, "Exit status").
    package let status: CompareExitStatus
    /// The report (empty when the input was unusable).
    package let output: String
    /// Errors, and in CSV format the summary.
    package let diagnostics: String
    /// The comparison, nil when the input was unusable.
    let report: ComparisonReport?

    init(status: CompareExitStatus, output: String, diagnostics: String, report: ComparisonReport?) {
        self.status = status
        self.output = output
        self.diagnostics = diagnostics
        self.report = report
    }
}
