/// How a scenario judges one of its outcomes, as jcstress does.
enum Grade: String, Sendable, CaseIterable {
    /// Allowed by the guarantee, and expected to be seen: a scenario that never
    /// sees one of these did not exercise its race.
    case acceptable
    /// Allowed, and worth counting (a rare interleaving), but not required.
    case interesting
    /// Breaks a guarantee: seen once, the run fails.
    case forbidden

    /// The label printed in tables and CSV.
    var label: String {
        switch self {
        case .acceptable: "ACCEPTABLE"
        case .interesting: "INTERESTING"
        case .forbidden: "FORBIDDEN"
        }
    }
}
