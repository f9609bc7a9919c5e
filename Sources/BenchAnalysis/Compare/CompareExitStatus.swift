/// The exit status of `BenchRunner compare`, for scripts and CI.
///
/// 0 is a pass only when every gated series was judged. When there is both a
/// regression and a series that could not be judged, the status is 1.
public enum CompareExitStatus: Int32, Sendable {
    /// Every gated series was judged, and none is worse.
    case noRegression = 0
    /// At least one gated regression.
    case regression = 1
    /// A file is missing or unusable, or an option is out of range: nothing was compared.
    case unusableInput = 2
    /// No regression was found, but at least one gated series could not be
    /// judged (too few repetitions, or worse on its own test but not confirmed
    /// across the run): not a pass. The summary names the series and the
    /// repetitions a side that would judge them.
    case notJudged = 3
}
