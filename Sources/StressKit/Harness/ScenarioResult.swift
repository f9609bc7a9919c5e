/// What one scenario's run produced: counts per outcome, leaks, and the verdict.
struct ScenarioResult: Sendable {
    /// One line of the table.
    struct Row: Sendable, Equatable {
        /// The declared outcome (or an undeclared one, graded forbidden).
        let outcome: OutcomeDeclaration
        /// How many iterations ended in it.
        let count: Int
    }

    /// The verdict on one scenario.
    enum Verdict: String, Sendable {
        /// No forbidden outcome, no leak, every acceptable outcome seen.
        case passed = "OK"
        /// No forbidden outcome and no leak, but some acceptable outcome was
        /// never seen: the race was not exercised.
        case notExercised = "NOT EXERCISED"
        /// A forbidden outcome was seen or something leaked.
        case failed = "FAILED"
        /// A reference on the platform's own executors (its name starts with
        /// `reference.`): its forbidden outcomes are reported, never gated.
        case reference = "REFERENCE"
    }

    /// Whether `name` is a reference's: its first part is `reference`, the
    /// mark BenchRunner's ungated variants carry too (no registration may
    /// take it).
    static func isReference(_ name: String) -> Bool {
        name.hasPrefix("reference.")
    }

    /// The scenario's name.
    let name: String
    /// The numbers of the guarantees (Guarantees.md) it hammers.
    let guarantees: String
    /// The scenario's one-line summary.
    let summary: String
    /// The seed its choices came from.
    let seed: UInt64
    /// How many iterations ran.
    let iterations: Int
    /// Wall time of the iterations, in seconds.
    let seconds: Double
    /// One row per declared outcome, in declaration order (then undeclared ones).
    let rows: [Row]
    /// Tracked instances still alive after tear-down (should be 0).
    let leaked: Int
    /// Under `--explore`: the strategy, the schedules and the failing schedule
    /// (`iterations` then counts schedules); `nil` for a run on real threads.
    var exploration: ExplorationSummary? = nil
    /// Why the run ended before its limit (a scheduler that did not settle), or `nil`.
    var stoppedBecause: String? = nil

    /// The count of the outcome with `id`, or 0.
    func count(of id: String) -> Int {
        rows.first { $0.outcome.id == id }?.count ?? 0
    }

    /// Iterations that ended in a forbidden outcome.
    var forbiddenCount: Int {
        rows.filter { $0.outcome.grade == .forbidden }.reduce(0) { $0 + $1.count }
    }

    /// Acceptable outcomes that never happened.
    var unseenAcceptable: [String] {
        rows.filter { $0.outcome.grade == .acceptable && $0.count == 0 }.map(\.outcome.id)
    }

    /// See `Verdict`.
    var verdict: Verdict {
        if Self.isReference(name) {
            return .reference
        }
        if forbiddenCount > 0 || leaked != 0 {
            return .failed
        }
        return unseenAcceptable.isEmpty ? .passed : .notExercised
    }
}
