import Dispatch

extension DispatchTimeInterval {
    /// The interval in nanoseconds, saturating; `nil` for `.never`.
    @usableFromInline
    var nanosecondsOrNil: Int64? {
        switch self {
        case .seconds(let value): return saturatingProduct(value, 1_000_000_000)
        case .milliseconds(let value): return saturatingProduct(value, 1_000_000)
        case .microseconds(let value): return saturatingProduct(value, 1_000)
        case .nanoseconds(let value): return Int64(value)
        case .never: return nil
        @unknown default: return nil
        }
    }

    /// The interval in seconds as a `Double`; `.infinity` for `.never`.
    @usableFromInline
    var secondsValue: Double {
        guard let nanoseconds = nanosecondsOrNil else { return .infinity }
        return Double(nanoseconds) / 1e9
    }

    /// A due time as nanoseconds from now: negative clamps to zero, `.never` is `nil`.
    @usableFromInline
    var dueNanoseconds: Int64? {
        guard let nanoseconds = nanosecondsOrNil else { return nil }
        return max(0, nanoseconds)
    }

    /// Schedules a one-shot action due this far from now, as the real-time
    /// schedulers do: `.never` arms nothing and returns a disposable that
    /// does nothing; due now or already (a negative due time), `now()`;
    /// otherwise `later` with the delay in nanoseconds, positive.
    func scheduleOnce(now: () -> Disposable, later: (Int64) -> Disposable) -> Disposable {
        guard let nanoseconds = dueNanoseconds else {
            // Never due: nothing to arm, nothing to hold.
            return Disposables.create(with: {})
        }
        return nanoseconds > 0 ? later(nanoseconds) : now()
    }

    /// Validates a period: zero or positive, or `.never` (`nil`: the first
    /// tick and no next one, as in RxSwift); a negative period stops with a
    /// message naming `argument`. Zero is allowed, as in RxSwift: it means
    /// "as often as the scheduler allows" (see `schedulePeriodic`).
    @usableFromInline
    func validatedPeriodNanoseconds(argument: String = "period") -> Int64? {
        guard let nanoseconds = nanosecondsOrNil else { return nil }
        precondition(
            nanoseconds >= 0,
            "\(argument) must be positive (or zero: as often as the scheduler allows), got \(nanoseconds) ns"
        )
        return nanoseconds
    }
}

@usableFromInline
func saturatingProduct(_ value: Int, _ factor: Int64) -> Int64 {
    let (product, overflow) = Int64(value).multipliedReportingOverflow(by: factor)
    guard overflow else { return product }
    return value < 0 ? .min : .max
}
