import Foundation
import Schedulers

/// `virtualTime.scheduling`: what one action costs on virtual time. A chain
/// on a `HistoricalScheduler`: each action schedules the next one a
/// millisecond of virtual time later (`scheduleRelative`), and `start()`
/// runs them all in time order on the calling thread; `ns_per_schedule` and
/// `instructions_per_schedule` are per action (schedule, queue, run).
struct VirtualTimeBenchmark: NamedBenchmark {
    static let name = "virtualTime.scheduling"
    static let historical = VariantID.library("historical")
    /// Its variants and metrics, as ``CSVSchema`` lists them.
    static var schema: BenchmarkSchema {
        BenchmarkSchema(name: name, variants: [historical], metrics: [.perSchedule.time, .perSchedule.instructions] + InstructionPass.lookupMetrics)
    }

    /// Actions per timing repetition at each suite size.
    static func actions(in size: SuiteSize) -> Int {
        switch size {
        case .standard: 200_000
        case .quick: 50_000
        case .tiny: 200
        }
    }

    /// Actions whose instructions are counted, in every suite.
    static let countedActions = 10_000

    init() {}

    func plans(for configuration: SuiteConfiguration) -> [MeasurementPlan] {
        let actions = Self.actions(in: configuration.size)
        return [
            MeasurementPlan(
                benchmark: Self.name, variant: Self.historical, params: formatParams(["actions": String(actions)]),
                estimatedSeconds: Double(actions) * 2e-6 + 0.005,
                warmUp: { _ in try Self.run(actions: max(actions / 10, 1)) { $0() } },
                measure: { context in
                    var region: MeasureContext.Region?
                    try Self.run(actions: actions) { body in region = context.region(body).1 }
                    return [MetricValue(.perSchedule.time, region.map { $0.nanosecondsPer(actions) })]
                },
                countInstructions: InstructionWorkload(metric: .perSchedule.instructions, operations: Self.countedActions) {
                    counted in
                    try Self.run(actions: Self.countedActions / 10) { $0() }
                    try Self.run(actions: Self.countedActions, around: counted)
                })
        ]
    }

    /// Runs a chain of `actions` actions on a fresh scheduler; `around`
    /// wraps scheduling the first and running them all.
    static func run(actions: Int, around: (() -> Void) -> Void) throws {
        let scheduler = HistoricalScheduler()
        let chain = Chain(scheduler: scheduler, target: actions)
        around {
            _ = scheduler.scheduleRelative(chain, dueTime: .milliseconds(1), action: Self.step)
            scheduler.start()
        }
        guard chain.count == actions else {
            throw BenchmarkFailure("virtualTime.scheduling: \(chain.count) actions ran, not \(actions)")
        }
    }

    /// The chain's state: the scheduler and how far it got.
    final class Chain {
        let scheduler: HistoricalScheduler
        let target: Int
        var count = 0

        init(scheduler: HistoricalScheduler, target: Int) {
            self.scheduler = scheduler
            self.target = target
        }
    }

    /// One action: counts itself and schedules the next a millisecond later.
    static func step(_ chain: Chain) -> Disposable {
        chain.count += 1
        if chain.count < chain.target {
            _ = chain.scheduler.scheduleRelative(chain, dueTime: .milliseconds(1), action: step)
        }
        return Disposables.create()
    }
}
