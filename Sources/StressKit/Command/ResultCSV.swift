import ToolSupport

/// Writes results as long-form CSV: one row per scenario and outcome.
enum ResultCSV {
    /// The header line.
    static let header = "seed,scenario,guarantees,iterations,seconds,live_at_end,verdict,outcome,grade,count"

    /// The CSV text (header included) for `results`.
    static func render(_ results: [ScenarioResult]) -> String {
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

    /// The results in `text`, as `render(_:)` writes them: one result per
    /// scenario, its rows in the file's order. What the CSV does not carry
    /// (each outcome's meaning, the scenario's summary) is empty. Throws a
    /// `CSVReadError` or a `ResultFileError` naming the line of a record that does not fit.
    static func parse(_ text: String) throws -> [ScenarioResult] {
        let records = try CSVReader.records(in: text)
        let columns = header.split(separator: ",").map(String.init)
        guard let first = records.first, first.fields == columns else {
            throw ResultFileError(line: 1, message: "not a Stress result file: the header must be '\(header)'")
        }
        var results: [ScenarioResult] = []
        var rows: [ScenarioResult.Row] = []
        var current: [String]?
        func close() {
            guard let fields = current else { return }
            results.append(ScenarioResult(
                name: fields[1], guarantees: fields[2], summary: "", seed: UInt64(fields[0]) ?? 0,
                iterations: Int(fields[3]) ?? 0, seconds: Double(fields[4]) ?? 0, rows: rows,
                leaked: Int(fields[5]) ?? 0))
            rows = []
        }
        for record in records.dropFirst() {
            let fields = record.fields
            guard fields.count == columns.count, UInt64(fields[0]) != nil, Int(fields[3]) != nil,
                Double(fields[4]) != nil, Int(fields[5]) != nil, let count = Int(fields[9]),
                let grade = Grade.allCases.first(where: { $0.label == fields[8] })
            else {
                throw ResultFileError(
                    line: record.line, message: "a row needs \(columns.count) fields (\(header)) with numbers where they belong")
            }
            if current?[1] != fields[1] {
                close()
                current = fields
            }
            rows.append(ScenarioResult.Row(outcome: OutcomeDeclaration(id: fields[7], grade: grade, meaning: ""), count: count))
        }
        close()
        return results
    }
}

/// A record of a Stress result file that does not fit its header.
struct ResultFileError: Error, Sendable, Equatable, CustomStringConvertible {
    /// 1-based line of the record.
    let line: Int
    /// What is wrong.
    let message: String

    /// `line N: message`.
    var description: String {
        "line \(line): \(message)"
    }
}
