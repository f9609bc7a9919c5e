/// The outcomes one scenario can classify a run into.
///
/// A scenario declares them as an enum, so that every outcome it can report
/// is listed (and graded) before the first run: the table shows the ones never
/// seen, too.
protocol ScenarioOutcome: Hashable, CaseIterable, Sendable {
    /// A short, stable identifier: the table's and the CSV's outcome column.
    var id: String { get }
    /// Whether the outcome is allowed, interesting or forbidden.
    var grade: Grade { get }
    /// One sentence saying what happened.
    var meaning: String { get }
    /// Whether the scenario stops after the batch that saw this outcome:
    /// the scheduler did not settle (it never ran or dropped what it was
    /// given), so further batches would only wait out the same timeout.
    var stopsTheRun: Bool { get }
}

extension ScenarioOutcome {
    /// No outcome stops a run unless it says so.
    var stopsTheRun: Bool { false }
}

extension ScenarioOutcome where Self: RawRepresentable, RawValue == String {
    /// An outcome with a `String` raw value is identified by it: the raw
    /// value is what the table and the CSV show.
    var id: String { rawValue }
}

/// One declared outcome, with the scenario's type erased (for tables and CSV).
struct OutcomeDeclaration: Hashable, Sendable {
    /// See `ScenarioOutcome.id`.
    let id: String
    /// See `ScenarioOutcome.grade`.
    let grade: Grade
    /// See `ScenarioOutcome.meaning`.
    let meaning: String

    /// Creates a declaration.
    init(id: String, grade: Grade, meaning: String) {
        self.id = id
        self.grade = grade
        self.meaning = meaning
    }

    /// The declaration of `outcome`.
    init<Outcome: ScenarioOutcome>(_ outcome: Outcome) {
        self.init(id: outcome.id, grade: outcome.grade, meaning: outcome.meaning)
    }
}
