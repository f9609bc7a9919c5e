/// The verdict on one pair of series in `BenchRunner compare`. Each case's
/// raw value is its label, as the table, the summary and compare's CSV
/// `verdict` column print it; ``VerdictTable`` decides which one a series gets.
///
/// Three groups, which the summary and the exit status keep apart:
/// - Judged (``isJudged``): ``better``, ``worse``, ``same``,
///   ``notShownEqual`` and ``possiblyBetter`` (a likely improvement is no
///   regression either way).
/// - Could not be judged although the series should have been
///   (``isUnjudged``): ``tooFewRepetitions``, ``possiblyWorse`` and
///   ``movedWorse``. Never "no regression".
/// - Not judged by design: ``shownOnly``, ``added``, ``removed`` and ``noValues``.
package enum CompareVerdict: String, Sendable, CaseIterable {
    /// Better by more than the threshold, confirmed across the run (for exact
    /// counts: any change in the good direction beyond the tolerance).
    case better
    /// Worse by more than the threshold, confirmed across the run (for exact
    /// counts: any change in the harmful direction beyond the tolerance). A
    /// regression when gated.
    case worse
    /// Shown equal: the confidence interval of the change lies within
    /// ±threshold (for exact counts: equal within the tolerance).
    case same
    /// Not shown equal: neither a change beyond the threshold nor sameness
    /// within it is shown, and the median did not move beyond the threshold
    /// in the harmful direction. Judged, not a regression, never counted as
    /// ``same``.
    case notShownEqual = "~"
    /// The median moved beyond the threshold in the harmful direction (as
    /// measured and after the drift correction), but no test confirmed it.
    /// Not judged, never a pass.
    case movedWorse = "moved worse?"
    /// Every new repetition worse than every base one beyond the threshold,
    /// significant alone but not after the correction across the run. Not
    /// judged: only more repetitions can tell a regression from chance.
    case possiblyWorse = "worse?"
    /// Every new repetition better than every base one beyond the threshold,
    /// significant alone but not after the correction across the run. Judged:
    /// never affects the exit status.
    case possiblyBetter = "better?"
    /// Even repetitions that do not overlap could not reach alpha, or the run
    /// of a series read at its usual level did not measure that level. Not judged.
    case tooFewRepetitions = "too few repetitions"
    /// Only in the new file.
    case added
    /// Only in the base file.
    case removed
    /// In both files, but one side has only empty values (not measured in that run).
    case noValues = "no values"
    /// Shown, never judged, by design: a peer's or reference's time (it
    /// measures the machine), a single-run tail, a per-tick sample, a machine
    /// fact, a count that varies by design, or a metric the schema does not declare.
    case shownOnly = "shown only"

    /// Whether the series was judged: shown worse, better, equal or not shown
    /// equal, or a likely improvement.
    var isJudged: Bool {
        switch self {
        case .better, .worse, .same, .notShownEqual, .possiblyBetter: true
        case .movedWorse, .possiblyWorse, .tooFewRepetitions, .added, .removed, .noValues, .shownOnly: false
        }
    }

    /// Whether the series should have been judged but could not be: such a
    /// verdict, when gated, makes the exit status 3, never 0.
    var isUnjudged: Bool {
        self == .tooFewRepetitions || self == .possiblyWorse || self == .movedWorse
    }

    /// Whether the median moved beyond the threshold in the harmful direction
    /// without a test confirming it: the suspected regressions the summary's
    /// last line names first.
    var isSuspectedRegression: Bool {
        self == .possiblyWorse || self == .movedWorse
    }
}
