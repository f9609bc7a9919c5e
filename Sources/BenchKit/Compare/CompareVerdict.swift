/// The outcome for one pair of series in `BenchRunner compare`.
///
/// Three groups, which the summary and the exit status keep apart:
/// - Judged: ``better``, ``worse``, ``same``, ``cannotTell`` and
///   ``unconfirmedBetter`` (a likely improvement is no regression either way).
///   ``cannotTell`` is judged only because its median did not move beyond
///   the threshold in the harmful direction: it is "not shown equal", never
///   counted with ``same``.
/// - Could not be judged although the series should have been (``isUnjudged``):
///   ``tooFewRepetitions``, ``unconfirmedWorse`` and ``movedWorse``. Never
///   "no regression".
/// - Not judged by design: ``informational`` (anchors, single-run tails,
///   per-tick samples, machine facts), ``added``, ``removed`` and ``noValues``.
public enum CompareVerdict: String, Sendable, CaseIterable {
    /// Better by more than the threshold, confirmed across the run (for exact
    /// metrics: any change in the good direction).
    case better
    /// Worse by more than the threshold, confirmed across the run (for exact
    /// metrics: any change in the bad direction). A regression when gated.
    case worse
    /// Unchanged within the threshold: the confidence interval of the change
    /// lies inside ±threshold (for exact metrics: equal counts, or within the
    /// exact tolerance).
    case same
    /// Cannot tell, "not shown equal": neither a change beyond the threshold
    /// nor sameness within it could be shown, and the median did not move
    /// beyond the threshold in the harmful direction (a median that did is
    /// ``movedWorse``). Not a regression, but not shown equal either.
    case cannotTell = "~"
    /// The median moved beyond the threshold in the harmful direction (as
    /// measured and after the machine-drift correction), but the repetitions
    /// overlap too much for the test to confirm it: a harmful move that was
    /// neither confirmed nor ruled out. Never a pass: more repetitions,
    /// longer repetitions or a quieter machine would judge it.
    case movedWorse = "moved worse?"
    /// Every new repetition worse than every base one by more than the
    /// threshold, significant on its own test but not after the
    /// false-discovery correction across the run: too few repetitions to
    /// confirm the clearest evidence they can give. It could be a regression
    /// or one of the run's chance findings; only more repetitions can tell.
    case unconfirmedWorse = "worse?"
    /// Every new repetition better than every base one by more than the
    /// threshold, significant on its own test but not after the
    /// false-discovery correction: the mirror of ``unconfirmedWorse``, shown
    /// so that a clear improvement is not reported as "cannot tell". Not a
    /// regression whatever more repetitions find, so it never affects the
    /// exit status.
    case unconfirmedBetter = "better?"
    /// The samples are too small for the test to reach alpha even if they do
    /// not overlap: no verdict rather than a guess.
    case tooFewRepetitions = "too few repetitions"
    /// Only in the new file.
    case added
    /// Only in the base file.
    case removed
    /// In both files, but one side has only empty values (not measured in that run).
    case noValues = "no values"
    /// Shown, never judged, by design: an anchor (peer or reference: it
    /// measures the machine), a single-run tail, a per-tick sample, or a
    /// metric describing the machine.
    case informational = "shown only"

    /// Whether the series was judged (the first group above): shown worse,
    /// better, equal or not shown equal, or a likely improvement.
    public var isJudged: Bool {
        switch self {
        case .better, .worse, .same, .cannotTell, .unconfirmedBetter: true
        default: false
        }
    }

    /// Whether the series should have been judged but could not be: such a
    /// verdict, when gated, makes the exit status 3, never 0.
    public var isUnjudged: Bool {
        self == .tooFewRepetitions || self == .unconfirmedWorse || self == .movedWorse
    }
}
