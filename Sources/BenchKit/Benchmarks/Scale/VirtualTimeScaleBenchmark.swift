import Foundation
import NIOCore
import NIOEmbedded
import Schedulers

/// `scale.virtualTime`: schedule N actions at scattered virtual due times,
/// dispose every other one, run the rest. Each phase is timed apart
/// (`ns_per_op`, `phase=schedule|dispose|run`) and counted apart
/// (`allocs_per_op`, counting pass), at each N, with each one's growth
/// exponent. The library's `HistoricalScheduler` (a `VirtualTimeScheduler`
/// called from another module, as a test suite calls `TestScheduler`) beside
/// SwiftNIO's `EmbeddedEventLoop` (`scheduleTask(deadline:)`, `cancel()`,
/// `advanceTime(to:)`), whose cancel searches its queue linearly and is
/// therefore measured only up to ``peerLimit`` actions.
struct VirtualTimeScaleBenchmark: ScaleBenchmark {
    static let name = "scale.virtualTime"
    static var schema: BenchmarkSchema {
        BenchmarkSchema(
            name: name, variants: [.library("historical"), .peer("nio-embedded")],
            metrics: [.nanosecondsPerOperation, .growthExponent, .allocationsPerOperation, .countGrowthExponent])
    }

    /// The largest N the peer runs: its cancel is a linear search, so half of
    /// N cancels cost N²/4 comparisons (10⁴ takes tens of milliseconds, 10⁶
    /// would take hours).
    static let peerLimit = 10_000

    /// What memory allows: an action, its closure, its disposable and the
    /// harness's array slot take about 200 bytes.
    static var limit: ScalePointLimit {
        .memory(benchmark: name, quantity: "actions", bytesPerItem: 200, cap: 10_000_000)
    }

    /// The N this sweep runs.
    static func points(_ configuration: SuiteConfiguration) -> [Int] {
        ScaleSweeps.points(in: configuration, tiny: [10, 100, 1_000], modest: [100, 1_000, 10_000, 100_000], full: [1_000, 10_000, 100_000, 1_000_000])
    }

    init() {}

    func plans(for configuration: SuiteConfiguration, points: [Int]) -> [MeasurementPlan] {
        let params = formatParams(["points": String(points.count)])
        let total = Double(points.reduce(0, +))
        return [
            plan(.library("historical"), params: params, points: points, estimate: total * 1.5e-6 + 0.01, run: Self.library),
            plan(
                .peer("nio-embedded"), params: params, points: points.filter { $0 <= Self.peerLimit },
                estimate: 0.05, run: Self.nio),
        ]
    }

    /// Nanoseconds and allocations of each phase at `n`.
    struct Phases {
        var schedule: MeasureContext.Region
        var dispose: MeasureContext.Region
        var run: MeasureContext.Region
    }

    private func plan(
        _ variant: VariantID, params: String, points: [Int], estimate: Double,
        run: @escaping @Sendable (Int, MeasureContext) throws -> Phases
    ) -> MeasurementPlan {
        @Sendable func sweep(_ context: MeasureContext, counting: Bool) throws -> [MetricValue] {
            var recorder = SweepRecorder()
            let progress = SweepProgress(progress: context.progress, count: points.count)
            for (index, n) in points.enumerated() {
                progress.enter(point: index, n: n)
                let phases = try run(n, context)
                let half = n / 2
                for (phase, region, operations) in [
                    ("schedule", phases.schedule, n), ("dispose", phases.dispose, half), ("run", phases.run, n - half),
                ] {
                    if counting {
                        recorder.record(.allocationsPerOperation, n: n, phase: phase, region.allocationsPer(operations))
                    } else {
                        recorder.record(.nanosecondsPerOperation, n: n, phase: phase, region.nanosecondsPer(operations))
                    }
                }
            }
            return recorder.rows(fitting: [Metric.nanosecondsPerOperation.name, Metric.allocationsPerOperation.name])
        }
        return MeasurementPlan(
            benchmark: Self.name, variant: variant, params: params, estimatedSeconds: estimate,
            warmUpEstimatedSeconds: 0.01, countingEstimatedSeconds: estimate * 3,
            warmUp: { context in _ = try run(min(points.first ?? 100, 1_000), context) },
            measure: { context in try sweep(context, counting: false) },
            countAllocations: { context in
                _ = try run(min(points.first ?? 100, 1_000), context)
                return try sweep(context, counting: true)
            })
    }

    /// The due time of action `index` of `n`: a fixed permutation of 0..<n
    /// (7 919 is prime, so coprime with every N a sweep uses unless a
    /// multiple of it), so the queue has to order them.
    static func dueTime(_ index: Int, of n: Int) -> Int {
        (index &* 7_919) % max(n, 1)
    }

    @Sendable static func library(_ n: Int, _ context: MeasureContext) throws -> Phases {
        let scheduler = HistoricalScheduler()
        let start = scheduler.clock
        var disposables: [Disposable] = []
        disposables.reserveCapacity(n)
        let counter = RunCounter()
        let action: (RunCounter) -> Disposable = { counter in
            counter.count += 1
            return Disposables.create()
        }
        let schedule = context.region {
            for index in 0..<n {
                disposables.append(
                    scheduler.scheduleAbsoluteVirtual(
                        counter, time: start.addingTimeInterval(Double(dueTime(index, of: n))), action: action))
            }
        }.1
        let dispose = context.region {
            for index in stride(from: 0, to: n, by: 2) {
                disposables[index].dispose()
            }
        }.1
        let run = context.region { scheduler.start() }.1
        guard counter.count == n - (n + 1) / 2 else {
            throw BenchmarkFailure("historical: \(counter.count) actions ran, expected \(n - (n + 1) / 2)")
        }
        return Phases(schedule: schedule, dispose: dispose, run: run)
    }

    @Sendable static func nio(_ n: Int, _ context: MeasureContext) throws -> Phases {
        let loop = EmbeddedEventLoop()
        defer { try? loop.syncShutdownGracefully() }
        var scheduled: [Scheduled<Void>] = []
        scheduled.reserveCapacity(n)
        let counter = RunCounter()
        let schedule = context.region {
            for index in 0..<n {
                scheduled.append(
                    loop.scheduleTask(deadline: .uptimeNanoseconds(UInt64(dueTime(index, of: n) + 1) * 1_000_000_000)) {
                        counter.count += 1
                    })
            }
        }.1
        let dispose = context.region {
            for index in stride(from: 0, to: n, by: 2) {
                scheduled[index].cancel()
            }
        }.1
        let run = context.region { loop.advanceTime(to: .uptimeNanoseconds(UInt64(n + 2) * 1_000_000_000)) }.1
        guard counter.count == n - (n + 1) / 2 else {
            throw BenchmarkFailure("peer.nio-embedded: \(counter.count) tasks ran, expected \(n - (n + 1) / 2)")
        }
        return Phases(schedule: schedule, dispose: dispose, run: run)
    }

    final class RunCounter: @unchecked Sendable {
        var count = 0
    }
}
