import Foundation
import ToolSupport

/// Writes a ``HistoryReport`` as a terminal table, CSV or JSON.
package struct HistoryFormatter: Sendable {
    let report: HistoryReport
    /// The level the intervals go with (they are at `1 - 2·alpha`).
    let alpha: Double

    /// A revision as printed: its first 7 hex digits, `-dirty` kept.
    static func shortRevision(_ revision: String) -> String {
        let dirty = revision.hasSuffix("-dirty")
        let commit = CommitOrder.commitPrefix(of: revision)
        return String(commit.prefix(7)) + (dirty ? "-dirty" : "")
    }

    private var changes: [(entry: HistoryReport.Entry, change: ChangePoint)] {
        report.entries.flatMap { entry in entry.changePoints.map { (entry, $0) } }
    }

    private func seriesName(_ entry: HistoryReport.Entry) -> String {
        let name = entry.series.key.description
        return report.machines.count > 1 ? "\(name) @ \(entry.series.machine)" : name
    }

    private static func change(_ change: ChangePoint) -> String {
        guard let relative = change.relativeChange else { return NumberFormat.plain(change.after - change.before) }
        return NumberFormat.percentage(relative)
    }

    private static func interval(_ change: ChangePoint) -> String {
        guard let interval = change.interval else { return change.evidence == .exact ? "exact" : "" }
        return "[\(NumberFormat.percentage(interval.lowerBound)), \(NumberFormat.percentage(interval.upperBound))]"
    }

    private static func probability(_ value: Double?) -> String {
        guard let value else { return "" }
        return value < 0.0001 ? String(format: "%.0e", value) : NumberFormat.fourSignificantDigits(value)
    }

    private func mark(_ entry: HistoryReport.Entry, _ change: ChangePoint) -> String {
        var text = change.evidence.rawValue
        if change.isHarmful { text += ", worse" }
        if report.isAtNewestRun(change, of: entry) { text += ", newest run" }
        return text
    }

    /// The change points as an aligned table, then the summary.
    func table() -> String {
        let confidence = NumberFormat.plain((1 - 2 * alpha) * 100)
        let layout = TextTable(
            columns: [
                .init("series"), .init("revisions"), .init("before → after", alignment: .right),
                .init("change", alignment: .right), .init("interval (\(confidence) %)", alignment: .right),
                .init("p", alignment: .right), .init("q", alignment: .right), .init("runs", alignment: .right),
                .init("evidence"),
            ],
            underlinesTitles: true)
        let rows = changes.map { entry, change in
            [
                seriesName(entry),
                "\(Self.shortRevision(change.revisionBefore))..\(Self.shortRevision(change.revisionAfter))",
                "\(NumberFormat.compact(change.before)) → \(NumberFormat.compact(change.after)) \(entry.series.unit)",
                Self.change(change), Self.interval(change), Self.probability(change.pValue),
                Self.probability(change.qValue),
                "\(change.runsBefore)/\(change.runsAfter)", mark(entry, change),
            ]
        }
        var lines = report.notes
        if rows.isEmpty {
            lines.append("No change point in any series.")
        } else {
            lines += layout.lines(rows)
        }
        return lines.joined(separator: "\n") + "\n" + summary()
    }

    /// The summary: what was read, how many change points of each kind, and
    /// what the exit status says about the newest run.
    func summary() -> String {
        let all = changes
        let exact = all.filter { $0.change.evidence == .exact }.count
        let confirmed = all.filter { $0.change.evidence == .confirmed }.count
        let unconfirmed = all.filter { $0.change.evidence == .unconfirmed }.count
        let revisions = Set(report.entries.flatMap { $0.series.points.map(\.revision) }).count
        var lines = [
            "\(report.runCount) runs of \(revisions) revisions on \(report.machines.count) machine(s) "
                + "(\(report.machines.joined(separator: "; "))), \(report.entries.count) series: "
                + "\(all.count) change points (\(exact) exact, \(confirmed) confirmed, \(unconfirmed) unconfirmed)."
        ]
        let newest = report.newestRun ?? "none"
        let atNewest = report.regressionsAtNewestRun
        for (entry, change) in atNewest {
            lines.append(
                "Regression at the newest run: \(seriesName(entry)) \(Self.change(change)) (\(change.evidence.rawValue)).")
        }
        let status = report.exitStatus
        switch status {
        case .noRegression:
            lines.append("No gated series changed for the worse at the newest run (\(newest)): exit status 0.")
        case .regression:
            lines.append("\(atNewest.count) harmful change point(s) at the newest run (\(newest)): exit status 1.")
        case .notJudged:
            lines.append(
                "A harmful move at the newest run (\(newest)) has too few runs after it to be tested: "
                    + "exit status 3, not a pass; more runs of its revision judge it.")
        case .unusableInput:
            break
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// One CSV row per change point.
    func csv() -> String {
        var lines = [
            CSV.line([
                "benchmark", "variant", "params", "metric", "allocator", "machine", "unit", "revision_before",
                "revision_after", "before", "after", "change", "interval_lower", "interval_upper", "p", "q", "evidence",
                "harmful", "at_newest_run", "runs_before", "runs_after",
            ])
        ]
        for (entry, change) in changes {
            let key = entry.series.key
            lines.append(
                CSV.line([
                    key.benchmark, key.variant, key.params, key.metric, key.allocator, entry.series.machine,
                    entry.series.unit, change.revisionBefore, change.revisionAfter, NumberFormat.plain(change.before),
                    NumberFormat.plain(change.after), change.relativeChange.map(NumberFormat.plain) ?? "",
                    change.interval.map { NumberFormat.plain($0.lowerBound) } ?? "",
                    change.interval.map { NumberFormat.plain($0.upperBound) } ?? "",
                    change.pValue.map(NumberFormat.plain) ?? "", change.qValue.map(NumberFormat.plain) ?? "",
                    change.evidence.rawValue,
                    String(change.isHarmful), String(report.isAtNewestRun(change, of: entry)),
                    String(change.runsBefore), String(change.runsAfter),
                ]))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Every series with its points (revision, run files, run summaries)
    /// and change points, as JSON: an object with `runs`, `newestRun`,
    /// `machines`, `notes`, `exitStatus` and `series`, each series with its
    /// key's columns, `machine`, `unit`, `kind` (`timing` or `exact`),
    /// `points` (`revision`, `values`, `runs`) and `changePoints`.
    func json() -> String {
        let series: [[String: Any]] = report.entries.map { entry in
            let key = entry.series.key
            let isTiming: Bool = if case .timing = entry.series.kind.measure { true } else { false }
            return [
                "benchmark": key.benchmark, "variant": key.variant, "params": key.params, "metric": key.metric,
                "allocator": key.allocator, "machine": entry.series.machine, "unit": entry.series.unit,
                "kind": isTiming ? "timing" : "exact",
                "points": entry.series.points.map { point -> [String: Any] in
                    ["revision": point.revision, "values": point.runValues, "runs": point.runPaths]
                },
                "changePoints": entry.changePoints.map { change -> [String: Any] in
                    var fields: [String: Any] = [
                        "position": change.position, "revisionBefore": change.revisionBefore,
                        "revisionAfter": change.revisionAfter, "before": change.before, "after": change.after,
                        "evidence": change.evidence.rawValue, "harmful": change.isHarmful,
                        "atNewestRun": report.isAtNewestRun(change, of: entry),
                    ]
                    fields["intervalLower"] = change.interval?.lowerBound
                    fields["intervalUpper"] = change.interval?.upperBound
                    fields["p"] = change.pValue
                    fields["q"] = change.qValue
                    return fields
                },
            ]
        }
        var document: [String: Any] = [
            "runs": report.runCount, "machines": report.machines, "notes": report.notes,
            "exitStatus": Int(report.exitStatus.rawValue), "series": series,
        ]
        document["newestRun"] = report.newestRun
        guard let data = try? JSONSerialization.data(withJSONObject: document, options: [.sortedKeys]) else {
            return "{}\n"
        }
        return String(decoding: data, as: UTF8.self) + "\n"
    }
}
