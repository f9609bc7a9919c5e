/// Formats scenario results as text tables, in the manner of jcstress.
public enum ResultTable {
    /// The table of one scenario: header, one row per outcome, and the verdict's reasons.
    public static func render(_ result: ScenarioResult) -> String {
        var lines: [String] = []
        lines.append("[\(result.verdict.rawValue)] \(result.name)  (guarantees \(result.guarantees))")
        lines.append("    \(result.summary)")
        let rate = result.seconds > 0 ? Double(result.iterations) / result.seconds : 0
        lines.append(
            "    \(result.iterations) iterations in \(format(result.seconds)) s (\(Int(rate))/s), "
                + "seed \(result.seed), live instances at end: \(result.leaked)"
        )
        let idWidth = max(7, result.rows.map(\.outcome.id.count).max() ?? 0)
        let countWidth = max(5, result.rows.map { String($0.count).count }.max() ?? 0)
        lines.append(
            "    " + pad("outcome", idWidth) + "  " + pad("grade", 11) + "  "
                + padLeft("count", countWidth) + "  meaning"
        )
        for row in result.rows {
            var line = "    " + pad(row.outcome.id, idWidth) + "  " + pad(row.outcome.grade.label, 11)
            line += "  " + padLeft(String(row.count), countWidth) + "  " + row.outcome.meaning
            if row.outcome.grade == .forbidden && row.count > 0 {
                line += "   <-- FORBIDDEN OUTCOME SEEN"
            } else if row.outcome.grade == .acceptable && row.count == 0 {
                line += "   <-- never seen"
            }
            lines.append(line)
        }
        if result.leaked != 0 {
            lines.append("    FAILED: \(result.leaked) tracked instance(s) still alive after tear-down (leak)")
        }
        if result.forbiddenCount > 0 {
            lines.append("    FAILED: \(result.forbiddenCount) iteration(s) ended in a forbidden outcome")
        }
        if !result.unseenAcceptable.isEmpty {
            lines.append(
                "    NOT EXERCISED: acceptable outcome(s) never seen: "
                    + result.unseenAcceptable.joined(separator: ", ")
            )
        }
        return lines.joined(separator: "\n")
    }

    /// One line per verdict, naming the scenarios that did not pass.
    public static func summary(_ results: [ScenarioResult]) -> String {
        let failed = results.filter { $0.verdict == .failed }.map(\.name)
        let unexercised = results.filter { $0.verdict == .notExercised }.map(\.name)
        let passed = results.count - failed.count - unexercised.count
        var lines = ["Summary: \(results.count) scenario(s): \(passed) OK, "
            + "\(unexercised.count) NOT EXERCISED, \(failed.count) FAILED"]
        if !unexercised.isEmpty {
            lines.append("  not exercised (an acceptable outcome never seen): " + unexercised.joined(separator: ", "))
        }
        if !failed.isEmpty {
            lines.append("  failed (forbidden outcome or leak): " + failed.joined(separator: ", "))
        }
        return lines.joined(separator: "\n")
    }

    static func format(_ seconds: Double) -> String {
        let hundredths = Int((seconds * 100).rounded())
        let fraction = hundredths % 100
        return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }

    private static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }

    private static func padLeft(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : String(repeating: " ", count: width - text.count) + text
    }
}
