import Schedulers

/// The `scale.*` benchmarks: how the cost grows as the work grows (docs/Scale.md).
///
/// Each plan runs one variant's whole sweep per repetition (every N, smallest
/// first), so every repetition writes a value per point and a growth
/// exponent per fitted metric, and `compare` sees the exponents' spread
/// across repetitions. The quick suite skips the family (its N would be too
/// small to say anything about growth); the default suite runs modest N,
/// `--scale full` the large ones.
public enum ScaleFamily {
    /// The N a sweep runs: `--scale-n`'s list when given, else the sweep's
    /// own list for the tiny suite, the modest extent (the default) or
    /// `--scale full`.
    static func points(in configuration: SuiteConfiguration, tiny: [Int], modest: [Int], full: [Int]) -> [Int] {
        if let points = configuration.scale.points { return points }
        switch (configuration.size, configuration.scale.extent) {
        case (.tiny, _): return tiny
        case (_, .modest): return modest
        case (_, .full): return full
        }
    }

    /// Every sweep, in the order a run executes them.
    public static var all: [any Benchmark] {
        [
            TimerScaleBenchmark(), VirtualTimeScaleBenchmark(), FanInScaleBenchmark(), FanOutScaleBenchmark(),
            TrampolineScaleBenchmark(), LiveSubscriptionScaleBenchmark(),
        ]
    }

    /// The most N each sweep accepts (`--scale-n` is checked against these).
    public static var limits: [ScalePointLimit] {
        [
            TimerScaleBenchmark.limit, VirtualTimeScaleBenchmark.limit, FanInScaleBenchmark.limit,
            FanOutScaleBenchmark.limit, TrampolineScaleBenchmark.limit, LiveSubscriptionScaleBenchmark.limit,
        ]
    }

    /// The limits of the sweeps `filter` selects (all of them for no filter).
    public static func limits(selectedBy filter: BenchmarkFilter) -> [ScalePointLimit] {
        limits.filter { limit in
            filter.patterns.isEmpty
                || filter.patterns.contains { pattern in
                    pattern == limit.benchmark || limit.benchmark.contains(pattern) || pattern.hasPrefix(limit.benchmark + "/")
                }
        }
    }

    /// Whether the family runs in `configuration`'s suite: not in the quick one.
    static func runs(in configuration: SuiteConfiguration) -> Bool {
        configuration.size != .quick
    }

    /// Five repetitions of a whole sweep in the default suite, as every other
    /// benchmark (so `compare` can judge a point or an exponent on its own):
    /// about 45 s for the family at modest N.
    static func repetitions(in size: SuiteSize) -> Int {
        switch size {
        case .standard: 5
        case .quick: 1
        case .tiny: 2
        }
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
