import Schedulers
import ToolSupport

/// The `scale.*` benchmarks: how the cost grows as the work grows (docs/Scale.md).
///
/// Each plan runs one variant's whole sweep per repetition (every N, smallest
/// first), so every repetition writes a value per point and a growth
/// exponent per fitted metric, and `compare` sees the exponents' spread
/// across repetitions. The quick suite skips the sweeps (their N would be too
/// small to say anything about growth); the default suite runs modest N,
/// `--scale full` the large ones.
package enum ScaleSweeps {
    /// The N a sweep runs: `--scale-n`'s list when given, else the sweep's
    /// own list for the tiny suite, the modest extent (the default) or
    /// `--scale full`.
    static func points(in configuration: SuiteConfiguration, tiny: [Int], modest: [Int], full: [Int]) -> [Int] {
        configuration.scale.points ?? value(in: configuration, tiny: tiny, modest: modest, full: full)
    }

    /// A sweep's setting for `configuration`: the tiny suite's, else the
    /// modest extent's (the default) or `--scale full`'s.
    static func value<Value>(in configuration: SuiteConfiguration, tiny: Value, modest: Value, full: Value) -> Value {
        switch (configuration.size, configuration.scale.extent) {
        case (.tiny, _): tiny
        case (_, .modest): modest
        case (_, .full): full
        }
    }

    /// Every sweep, in the order a run executes them.
    static var all: [any Benchmark] { sweeps }

    /// The most N each sweep accepts (`--scale-n` is checked against these).
    static var limits: [ScalePointLimit] {
        sweeps.map { type(of: $0).limit }
    }

    static var sweeps: [any ScaleBenchmark] {
        [
            TimerScaleBenchmark(), VirtualTimeScaleBenchmark(), FanInScaleBenchmark(), FanOutScaleBenchmark(),
            TrampolineScaleBenchmark(), LiveSubscriptionScaleBenchmark(),
        ]
    }

    /// The limits of the sweeps `filter` selects (all of them for no filter).
    package static func limits(selectedBy filter: BenchmarkFilter) -> [ScalePointLimit] {
        limits.filter { limit in
            filter.patterns.isEmpty
                || filter.patterns.contains { pattern in
                    NameFilter.text(pattern, selects: limit.benchmark) || pattern.hasPrefix(limit.benchmark + "/")
                }
        }
    }

    /// Whether the sweeps run in `configuration`'s suite: not in the quick one.
    static func runs(in configuration: SuiteConfiguration) -> Bool {
        configuration.size != .quick
    }

    /// Five repetitions of a whole sweep in the default suite, as every other
    /// benchmark (so `compare` can judge a point or an exponent on its own):
    /// about 45 s for all the sweeps at modest N.
    static func repetitions(in size: SuiteSize) -> Int {
        switch size {
        case .standard: 5
        case .quick: 1
        case .tiny: 2
        }
    }
}

/// One sweep of them: its N and the most N it accepts; its
/// repetitions, and skipping the quick suite, are the sweeps'
/// (`ScaleSweeps`), provided here.
protocol ScaleBenchmark: NamedBenchmark {
    /// The most N the sweep accepts (`--scale-n` is checked against it).
    static var limit: ScalePointLimit { get }
    /// The N the sweep runs in `configuration`, smallest first.
    static func points(_ configuration: SuiteConfiguration) -> [Int]
    /// The sweep's plans over `points` (`Self.points(configuration)`), in a
    /// suite that runs the sweeps.
    func plans(for configuration: SuiteConfiguration, points: [Int]) -> [MeasurementPlan]
}

extension ScaleBenchmark {
    /// The sweeps' repetitions (`ScaleSweeps.repetitions(in:)`).
    func repetitions(in size: SuiteSize) -> Int { ScaleSweeps.repetitions(in: size) }

    /// None in the quick suite; otherwise the sweep's plans over its N.
    func plans(for configuration: SuiteConfiguration) -> [MeasurementPlan] {
        guard ScaleSweeps.runs(in: configuration) else { return [] }
        return plans(for: configuration, points: Self.points(configuration))
    }
}

/// A source whose observers the harness drives from outside: `Observable.create`
/// keeps each subscriber's observer here, and `send` hands an element to every
/// one of them on the calling thread (a hand-written subject; the library has
/// none). Subscribe before sending, from one thread; send from one thread.
final class Emitter<Element>: @unchecked Sendable {
    private(set) var observers: [AnyObserver<Element>] = []

    lazy var observable: Observable<Element> = Observable.create { [unowned self] observer in
        self.observers.append(observer)
        return Disposables.create()
    }

    func send(_ element: Element) {
        for observer in observers {
            observer.onNext(element)
        }
    }
}
