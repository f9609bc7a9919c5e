/// A change of one series between two revisions.
package struct ChangePoint: Sendable, Equatable {
    /// Index in the series' points of the first point after the change.
    let position: Int
    /// The last revision before the change.
    let revisionBefore: String
    /// The first revision after the change.
    let revisionAfter: String
    /// The level before: the median of the run summaries from the previous
    /// change point (or the first run) to this one; for an exact count, the
    /// level it moved from.
    let before: Double
    /// The level after: likewise up to the next change point (or the newest run).
    let after: Double
    /// The Hodges-Lehmann interval of the shift from the runs at the level
    /// before to those at the level after, as fractions of `before` (at
    /// `1 - 2·alpha`); nil for exact counts and where the runs are too few.
    let interval: ClosedRange<Double>?
    /// The two-sided Mann-Whitney p of the test that accepted the change:
    /// the runs on either side within the segment it split; nil for exact counts.
    let pValue: Double?
    /// `pValue` adjusted across every test of every series analysed
    /// together (Benjamini-Hochberg); nil for exact counts and unconfirmed
    /// changes, and when the series was analysed alone.
    let qValue: Double?
    /// How sure the change is.
    let evidence: Evidence
    /// Whether the move is in the harmful direction.
    let isHarmful: Bool
    /// How many runs lie on each side: the test's samples, for an exact
    /// count the runs up to the neighbouring change points.
    let runsBefore: Int
    let runsAfter: Int

    /// The change as a fraction of the level before (`after / before - 1`),
    /// nil when the level before is 0.
    var relativeChange: Double? {
        before == 0 ? nil : after / before - 1
    }

    /// How sure the change is.
    enum Evidence: String, Sendable, Equatable {
        /// An exact count moved beyond its tolerance: no test is needed.
        case exact
        /// A timing moved beyond its threshold and its noise, and the rank
        /// test of the runs on either side is significant.
        case confirmed
        /// A timing moved beyond its threshold and its noise, but a side has
        /// too few runs for the rank test ever to reach the level (one run
        /// after a change): more runs of either revision would judge it.
        case unconfirmed
    }
}
