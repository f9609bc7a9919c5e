import Foundation
import ToolSupport

/// How far an exact count may move before `BenchRunner compare` calls it a
/// change (`--exact-tolerance`).
///
/// Allocation counts per element are whole numbers in the steady state, but a
/// measured window also catches one-off and amortised allocations (a queue
/// that grows while the producer runs ahead), which add a fraction that varies
/// between runs. An absolute tolerance below one keeps "one more allocation
/// per element" a regression while ignoring that fraction. The default is no
/// tolerance: any increase is a regression.
///
/// Written as a comma-separated list of `amount` (every exact metric),
/// `metric=amount` (one metric) or `prefix*=amount` (metrics starting with
/// prefix), e.g. `allocs_*=0.5,bytes_*=64`. A named metric wins over a prefix,
/// a longer prefix over a shorter one, and both over a bare amount.
package struct ExactTolerance: Sendable, Equatable {
    /// Which metrics the amount applies to.
    enum Scope: Sendable, Equatable {
        case everyExactMetric
        case metric(String)
        case prefix(String)
    }

    let scope: Scope
    /// Absolute amount in the metric's unit; changes up to it are `~`.
    let amount: Double

    init(scope: Scope, amount: Double) {
        precondition(amount >= 0 && amount.isFinite, "amount must be a finite number of 0 or more")
        self.scope = scope
        self.amount = amount
    }

    /// Parses the `--exact-tolerance` syntax described on the type; the error
    /// message says what is wrong with which entry.
    package static func parseList(_ text: String) -> Result<[ExactTolerance], CompareOptionError> {
        var tolerances: [ExactTolerance] = []
        for rawEntry in text.split(separator: ",", omittingEmptySubsequences: false) {
            let entry = rawEntry.trimmingCharacters(in: .whitespaces)
            let parts = entry.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let amountText = parts.count == 2 ? parts[1].trimmingCharacters(in: .whitespaces) : entry
            guard let amount = Double(amountText), amount.isFinite, amount >= 0 else {
                return .failure(CompareOptionError(
                    "--exact-tolerance entry '\(entry)' needs an amount of 0 or more, "
                        + "as in 0.5, allocs_per_element=0.5 or allocs_*=0.5"))
            }
            guard parts.count == 2 else {
                tolerances.append(ExactTolerance(scope: .everyExactMetric, amount: amount))
                continue
            }
            let name = parts[0].trimmingCharacters(in: .whitespaces)
            guard !name.isEmpty && name != "*" else {
                tolerances.append(ExactTolerance(scope: .everyExactMetric, amount: amount))
                continue
            }
            if name.hasSuffix("*") {
                tolerances.append(ExactTolerance(scope: .prefix(String(name.dropLast())), amount: amount))
            } else {
                tolerances.append(ExactTolerance(scope: .metric(name), amount: amount))
            }
        }
        return .success(tolerances)
    }

    /// The amount that applies to `metric` among `tolerances`, 0 when none does.
    static func amount(for metric: String, in tolerances: [ExactTolerance]) -> Double {
        var best: (rank: Int, amount: Double)?
        for tolerance in tolerances {
            let rank: Int
            switch tolerance.scope {
            case .metric(let name) where name == metric:
                rank = Int.max
            case .prefix(let prefix) where metric.hasPrefix(prefix):
                rank = 1 + prefix.count
            case .everyExactMetric:
                rank = 0
            default:
                continue
            }
            if let current = best, current.rank > rank {
                continue
            }
            best = (rank, tolerance.amount)
        }
        return best?.amount ?? 0
    }

    /// `allocs_*=0.5`-style text, for the summary.
    var description: String {
        let amountText = NumberFormat.plain(amount)
        return switch scope {
        case .everyExactMetric: amountText
        case .metric(let name): "\(name)=\(amountText)"
        case .prefix(let prefix): "\(prefix)*=\(amountText)"
        }
    }
}
