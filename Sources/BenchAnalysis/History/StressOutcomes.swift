import ToolSupport

/// A Stress results CSV (`Stress --csv FILE`: one row per scenario and
/// outcome) read for the history page's outcome tables. Read by its column
/// names, without StressKit: `scenario`, `verdict`, `outcome`, `grade` and
/// `count` are required, `iterations` and `seconds` shown when present.
package struct StressOutcomes: Sendable {
    /// One scenario's outcomes: its name, verdict, iterations and seconds
    /// as the file writes them, and each outcome with its grade and count.
    struct Scenario: Sendable {
        let name, verdict, iterations, seconds: String
        var outcomes: [(outcome: String, grade: String, count: Int)]
    }

    /// The file as named.
    let path: String
    /// The scenarios in the file's order.
    let scenarios: [Scenario]

    static let requiredColumns = ["scenario", "verdict", "outcome", "grade", "count"]

    /// Reads the Stress CSV at `path`; a problem names the file and line.
    static func load(path: String) throws(CompareInputError) -> StressOutcomes {
        let text = try CSVInput.text(atPath: path, missing: "no such file (write one with Stress --csv FILE)")
        let table = try CSVInput.table(
            text: text, path: path, empty: "is empty: expected Stress's results CSV (Stress --csv FILE)")
        let missing = table.missingColumns(requiredColumns)
        guard missing.isEmpty else {
            throw CompareInputError(
                file: path, line: table.header.line,
                message: "header lacks \(missing.joined(separator: ", ")) (is this a Stress --csv file?)")
        }
        var scenarios: [Scenario] = []
        for row in try CSVInput.rows(of: table, path: path) {
            guard let count = Int(row["count"]) else {
                throw CompareInputError(file: path, line: row.line, message: "count \"\(row["count"])\" is not a whole number")
            }
            let outcome = (outcome: row["outcome"], grade: row["grade"], count: count)
            if let last = scenarios.indices.last, scenarios[last].name == row["scenario"] {
                scenarios[last].outcomes.append(outcome)
            } else {
                scenarios.append(
                    Scenario(
                        name: row["scenario"], verdict: row["verdict"], iterations: row["iterations"],
                        seconds: row["seconds"], outcomes: [outcome]))
            }
        }
        return StressOutcomes(path: path, scenarios: scenarios)
    }

    /// The page's data: the file and each scenario with its outcome rows.
    var pageData: [String: Any] {
        [
            "file": path,
            "scenarios": scenarios.map { scenario -> [String: Any] in
                [
                    "scenario": scenario.name, "verdict": scenario.verdict, "iterations": scenario.iterations,
                    "seconds": scenario.seconds,
                    "outcomes": scenario.outcomes.map { ["outcome": $0.outcome, "grade": $0.grade, "count": $0.count] },
                ]
            },
        ]
    }
}
