import ToolSupport

/// Writes results as long-form CSV: one row per scenario and outcome.
public enum ResultCSV {
    /// The header line.
    public static let header = "seed,scenario,guarantees,iterations,seconds,live_at_end,verdict,outcome,grade,count"

    /// The CSV text (header included) for `results`.
    public static func render(_ results: [ScenarioResult]) -> String {
        var lines = [header]
        for result in results {
            for row in result.rows {
                let fields = [
                    String(result.seed), result.name, result.guarantees, String(result.iterations),
                    String(result.seconds), String(result.leaked), result.verdict.rawValue,
                    row.outcome.id, row.outcome.grade.label, String(row.count),
                ]
                lines.append(CSV.line(fields))
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
