/// The exit status of `BenchRunner compare`, for scripts and CI.
public enum CompareExitStatus: Int32, Sendable {
    /// No gated regression.
    case noRegression = 0
    /// At least one gated regression.
    case regression = 1
    /// A file is missing or unusable, or an option is out of range: nothing was compared.
    case unusableInput = 2
}
