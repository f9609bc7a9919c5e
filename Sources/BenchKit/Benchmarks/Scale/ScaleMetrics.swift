// MARK: - scale.*

extension Metric {
    /// The exponent b of `value ≈ a·N^b` over a sweep's points: the slope on
    /// log–log axes of a timed metric (named by the row's `of=` parameter).
    /// 0 is a per-operation cost that does not grow with N.
    ///
    /// Shown, not judged as a series of its own: compare judges the sweep it
    /// comes from (`GrowthComparison`: whether the growth changed, beyond
    /// the chance its calibrated points allow). Read as a series, its
    /// relative change means nothing: an exponent of -0.20 that becomes
    /// -0.15 would have "moved" by 25 %.
    static let growthExponent = Metric(
        "growth_exponent", unit: "exponent", kind: .informational, direction: .informational)
    /// The same for a metric of the counting pass (allocations or bytes per
    /// operation, named by `of=`): exact, as the counts are, and `same`
    /// within ``countGrowthExponentTolerance``.
    static let countGrowthExponent = Metric(
        "allocs_growth_exponent", unit: "exponent", kind: .allocations, direction: .lowerIsBetter
    ).tolerating(countGrowthExponentTolerance)
    /// How far a count's growth exponent may move and still be `same`. A
    /// sweep's fixed cost (a scheduler, a warm-up's caches) spread over N
    /// gives a constant per-operation count a slightly negative exponent, and
    /// any change in the per-operation size moves it by thousandths while
    /// every point stays constant in N. A count that
    /// starts to grow with N moves it by tenths (allocations per action going
    /// from 16 at 10³ to 36 at 10⁶ is b = 0.12), far beyond this.
    static let countGrowthExponentTolerance = 0.01
    /// The names of the two exponent rows a sweep writes, whose `of=` names the metric fitted.
    static let growthExponentNames: Set<String> = [growthExponent.name, countGrowthExponent.name]
    /// Time per operation of one phase of a sweep point.
    static let nanosecondsPerOperation = time("ns_per_op")
    /// Allocations per operation of one phase of a sweep point.
    static let allocationsPerOperation = allocationCount("allocs_per_op")
    /// Process CPU time (`getrusage`, user + system, every thread) per tick run.
    static let cpuNanosecondsPerTick = Metric("cpu_ns_per_tick", unit: "ns", kind: .measured, direction: .lowerIsBetter)
    /// Ticks due in the window that did not run, as a fraction of those due.
    static let skippedTickFraction = Metric(
        "skipped_tick_fraction", unit: "fraction", kind: .measured, direction: .lowerIsBetter)
    /// Time per element delivered to one observer.
    static let nanosecondsPerDelivery = time("ns_per_delivery")
    /// Time per action of a breadth of actions queued at once.
    static let nanosecondsPerAction = time("ns_per_action")
    /// Live bytes (jemalloc `stats.allocated`) per action while queued.
    static let bytesPerQueuedAction = byteCount("bytes_per_queued_action")
    /// Live bytes (jemalloc `stats.allocated`) per live subscription.
    static let bytesPerLiveSubscription = byteCount("bytes_per_live_subscription")
}
