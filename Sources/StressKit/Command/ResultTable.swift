import ToolSupport

/// Formats scenario results as text tables, in the manner of jcstress.
enum ResultTable {
    /// The table of one scenario: header, one row per outcome, and the verdict's reasons.
    ///
    /// - Parameter brokenOnPurpose: The scenario runs deliberately broken
    ///   code (the self-check), so a failure is what it must show: the
    ///   header and the reasons say "CAUGHT", not "FAILED".
    static func render(_ result: ScenarioResult, brokenOnPurpose: Bool = false) -> String {
        var lines: [String] = []
        let failed = brokenOnPurpose ? "CAUGHT" : "FAILED"
        let verdict =
            brokenOnPurpose && result.verdict == .failed
            ? "CAUGHT, as it must be: deliberately broken" : result.verdict.rawValue
        lines.append("[\(verdict)] \(result.name)  (guarantees \(result.guarantees))")
        lines.append("    \(result.summary)")
        let rate = result.seconds > 0 ? Double(result.iterations) / result.seconds : 0
        if let exploration = result.exploration {
            lines += explorationLines(exploration, result, rate: rate)
        } else {
            lines.append(
                "    \(result.iterations) iterations in \(NumberFormat.twoDecimals(result.seconds)) s (\(Int(rate))/s), "
                    + "seed \(result.seed), live instances at end: \(result.leaked)"
            )
        }
        let table = TextTable(
            columns: [
                TextTable.Column("outcome", minimumWidth: 7), TextTable.Column("grade", minimumWidth: 11),
                TextTable.Column("count", alignment: .right, minimumWidth: 5), TextTable.Column("meaning"),
            ],
            indent: "    ")
        lines += table.lines(result.rows.map { row in
            var meaning = row.outcome.meaning
            if row.outcome.grade == .forbidden && row.count > 0 {
                meaning += result.verdict == .reference
                    ? "   <-- forbidden on the library, seen on this reference" : "   <-- FORBIDDEN OUTCOME SEEN"
            } else if row.outcome.grade == .acceptable && row.count == 0 {
                meaning += "   <-- never seen"
            }
            return [row.outcome.id, row.outcome.grade.label, String(row.count), meaning]
        })
        if let stoppedBecause = result.stoppedBecause {
            lines.append("    STOPPED: \(stoppedBecause)")
        }
        if result.leaked != 0 && result.verdict != .reference {
            lines.append("    \(failed): \(result.leaked) tracked instance(s) still alive after tear-down (leak)")
        }
        if result.verdict == .reference {
            lines.append("    REFERENCE: the platform's own executor, reported beside the library's, never gated"
                + (result.forbiddenCount > 0
                    ? " (\(result.forbiddenCount) iteration(s) broke the promise the library makes)" : ""))
        } else if result.forbiddenCount > 0 {
            lines.append("    \(failed): \(result.forbiddenCount) iteration(s) ended in a forbidden outcome")
        }
        if !result.unseenAcceptable.isEmpty {
            lines.append(
                "    NOT EXERCISED: acceptable outcome(s) never seen: "
                    + result.unseenAcceptable.joined(separator: ", ")
            )
        }
        return lines.joined(separator: "\n")
    }

    private static func explorationLines(_ exploration: ExplorationSummary, _ result: ScenarioResult, rate: Double) -> [String] {
        var lines = [
            "    explored \(exploration.schedules) schedules, \(exploration.strategy), in "
                + "\(NumberFormat.twoDecimals(result.seconds)) s (\(Int(rate)) schedules/s), seed \(result.seed), "
                + "live instances at end: \(result.leaked)",
        ]
        if let divergence = exploration.divergence {
            lines.append("    the search \(divergence): the scenario is not deterministic under the controller, "
                + "so not every schedule was run")
        } else if exploration.statesSearched > 0 {
            let states = exploration.statesSearched == 1 ? "the state" : "each of \(exploration.statesSearched) seeded states"
            lines.append(
                exploration.boundLeftSchedulesOut
                    ? "    every schedule within the preemption bound was run for \(states); the bound left schedules out"
                    : "    every schedule was run for \(states) (the preemption bound left none out)")
        }
        if !exploration.exhausted && exploration.strategy.hasPrefix("exhaustive") {
            lines.append("    the limit stopped a search before it was exhausted"
                + (exploration.boundLeftSchedulesOut ? "; the preemption bound also left schedules out" : ""))
        }
        if let points = exploration.changePoints {
            lines.append("    pct change points: \(points.reached) of \(points.drawn) drawn were reached, counted only at "
                + "the \(points.choiceSteps) steps where more than one thread could run")
        }
        if !exploration.libraryInstrumented {
            lines.append("    note: this build's library has no sync points (build with --traits Exploration)")
        }
        if let schedule = exploration.failingSchedule {
            var shrunk = ""
            if let unshrunk = exploration.unshrunk {
                shrunk = " (shrunk from \(unshrunk.steps) steps and \(unshrunk.switches) switches to "
                    + "\(schedule.choices.count) recorded steps and \(schedule.switches) switches)"
            }
            lines.append("    failing schedule\(shrunk); reproduce it with:")
            lines.append("      \(StressCommand.programName) --replay '\(schedule)'")
        }
        return lines
    }

    /// One line per verdict, naming the scenarios that did not pass.
    static func summary(_ results: [ScenarioResult]) -> String {
        let failed = results.filter { $0.verdict == .failed }.map(\.name)
        let unexercised = results.filter { $0.verdict == .notExercised }.map(\.name)
        let references = results.filter { $0.verdict == .reference }
        let passed = results.count - failed.count - unexercised.count - references.count
        var lines = ["Summary: \(results.count) scenario(s): \(passed) OK, "
            + "\(unexercised.count) NOT EXERCISED, \(failed.count) FAILED"
            + (references.isEmpty ? "" : ", \(references.count) REFERENCE (the platform's executors, not gated)")]
        let keptNot = references.filter { $0.forbiddenCount > 0 }.map(\.name)
        if !keptNot.isEmpty {
            lines.append("  references that broke the promise (reported, not gated): " + keptNot.joined(separator: ", "))
        }
        if !unexercised.isEmpty {
            lines.append("  not exercised (an acceptable outcome never seen): " + unexercised.joined(separator: ", "))
        }
        if !failed.isEmpty {
            lines.append("  failed (forbidden outcome or leak): " + failed.joined(separator: ", "))
        }
        return lines.joined(separator: "\n")
    }
}
