/// What one scenario's run produced: counts per outcome, leaks, and the verdict.
public struct ScenarioResult: Sendable {
    /// One line of the table.
    public struct Row: Sendable, Equatable {
        /// The declared outcome (or an undeclared one, graded forbidden).
        public let outcome: OutcomeDeclaration
        /// How many iterations ended in it.
        public let count: Int
    }

    /// The verdict on one scenario.
    public enum Verdict: String, Sendable {
        /// No forbidden outcome, no leak, every acceptable outcome seen.
        case passed = "OK"
        /// No forbidden outcome and no leak, but some acceptable outcome was
        /// never seen: the race was not exercised.
        case notExercised = "NOT EXERCISED"
        /// A forbidden outcome was seen or something leaked.
        case failed = "FAILED"
    }

    /// The scenario's name.
    public let name: String
    /// The numbers of the guarantees (Guarantees.md) it hammers.
    public let guarantees: String
    /// The scenario's one-line summary.
    public let summary: String
    /// The seed its choices came from.
    public let seed: UInt64
    /// How many iterations ran.
    public let iterations: Int
    /// Wall time of the iterations, in seconds.
    public let seconds: Double
    /// One row per declared outcome, in declaration order (then undeclared ones).
    public let rows: [Row]
    /// Tracked instances still alive after tear-down (should be 0).
    public let leaked: Int
    /// Under `--explore`: the strategy, the schedules and the failing schedule
    /// (`iterations` then counts schedules); `nil` for a run on real threads.
    public internal(set) var exploration: ExplorationSummary? = nil
    /// Why the run ended before its limit (a scheduler that did not settle), or `nil`.
    public internal(set) var stoppedBecause: String? = nil

    /// The count of the outcome with `id`, or 0.
    public func count(of id: String) -> Int {
        rows.first { $0.outcome.id == id }?.count ?? 0
    }

    /// Iterations that ended in a forbidden outcome.
    public var forbiddenCount: Int {
        rows.filter { $0.outcome.grade == .forbidden }.reduce(0) { $0 + $1.count }
    }

    /// Acceptable outcomes that never happened.
    public var unseenAcceptable: [String] {
        rows.filter { $0.outcome.grade == .acceptable && $0.count == 0 }.map(\.outcome.id)
    }

    /// See `Verdict`.
    public var verdict: Verdict {
        if forbiddenCount > 0 || leaked != 0 {
            return .failed
        }
        return unseenAcceptable.isEmpty ? .passed : .notExercised
    }
}
