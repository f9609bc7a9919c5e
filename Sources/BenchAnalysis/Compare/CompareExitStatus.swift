/// The exit status of `BenchRunner compare`, for scripts and CI;
/// ``VerdictTable/exitRows`` decides it.
///
/// 0 is a pass only when every gated series was judged. When there is both a
/// regression and a series that could not be judged, the status is 1.
package enum CompareExitStatus: Int32, Sendable {
    /// Every gated series was judged, and none is worse.
    case noRegression = 0
    /// At least one gated regression: a gated series is `worse`, or, under
    /// `--gate all`, a scale sweep's growth got worse.
    case regression = 1
    /// A file is missing or unusable, or an option is out of range: nothing was compared.
    case unusableInput = 2
    /// No regression was found, but at least one gated series could not be
    /// judged (`too few repetitions`, `worse?` or `moved worse?`): not a
    /// pass. The summary names the series and what would judge them.
    case notJudged = 3
}
