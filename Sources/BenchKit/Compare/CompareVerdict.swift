/// The outcome for one pair of series in `BenchRunner compare`.
public enum CompareVerdict: String, Sendable, CaseIterable {
    /// A significant change of at least the threshold in the good direction
    /// (for exact metrics: any decrease).
    case better
    /// A significant change of at least the threshold in the bad direction
    /// (for exact metrics: any increase). A regression when gated.
    case worse
    /// No significant change, or one smaller than the threshold.
    case unchanged = "~"
    /// The samples are too small for the test to reach alpha even if they do
    /// not overlap: no verdict rather than a guess.
    case tooFewRepetitions = "too few repetitions"
    /// Only in the new file.
    case added
    /// Only in the base file.
    case removed
    /// In both files, but one side has only empty values (not measured in that run).
    case noValues = "no values"
    /// A metric that describes the machine rather than the code: shown, never judged.
    case informational = "not judged"
}
