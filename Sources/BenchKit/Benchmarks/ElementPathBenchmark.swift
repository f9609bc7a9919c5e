import Schedulers

/// `elementPath`: what an element costs on its way through the library's
/// operators when no thread is crossed: a producer looping inside
/// `Observable.create`, `map`, `filter` (every other element passes),
/// `observe(on:)` the current-thread scheduler and a `subscribe(onNext:)`
/// consumer, all on the calling thread. CPU work on one thread, so its
/// instructions are counted exactly (`instructions_per_element`, per element
/// produced); `ns_per_element` times the same path.
struct ElementPathBenchmark: NamedBenchmark {
    static let name = "elementPath"
    /// Its variants and metrics, as ``CSVSchema`` lists them.
    static var schema: BenchmarkSchema {
        BenchmarkSchema(
            name: name, variants: [.currentThread], metrics: [.perElement.time, .perElement.instructions] + InstructionPass.lookupMetrics)
    }

    /// Elements per timing repetition at each suite size.
    static func elements(in size: SuiteSize) -> Int {
        switch size {
        case .standard: 1_000_000
        case .quick: 200_000
        case .tiny: 500
        }
    }

    /// Elements whose instructions are counted, in every suite.
    static let countedElements = 100_000

    init() {}

    func plans(for configuration: SuiteConfiguration) -> [MeasurementPlan] {
        let elements = Self.elements(in: configuration.size)
        return [
            MeasurementPlan(
                benchmark: Self.name, variant: .currentThread, params: formatParams(["elements": String(elements)]),
                estimatedSeconds: Double(elements) * 150e-9 + 0.005,
                warmUp: { _ in _ = try Self.run(elements: max(elements / 10, 1)) { $0() } },
                measure: { context in
                    var region: MeasureContext.Region?
                    _ = try Self.run(elements: elements) { body in region = context.region(body).1 }
                    return [MetricValue(.perElement.time, region.map { $0.nanosecondsPer(elements) })]
                },
                countInstructions: InstructionWorkload(metric: .perElement.instructions, operations: Self.countedElements) {
                    counted in
                    _ = try Self.run(elements: Self.countedElements / 10) { $0() }
                    _ = try Self.run(elements: Self.countedElements, around: counted)
                })
        ]
    }

    /// Subscribes the chain, whose source emits `elements` elements inside
    /// `around` (the whole subscription, from `subscribe` to the last
    /// element), and checks what arrived. Returns the elements delivered.
    static func run(elements: Int, around: (() -> Void) -> Void) throws -> Int {
        let sink = ElementSink()
        let source = Observable<Int>.create { observer in
            for value in 0..<elements {
                observer.onNext(value)
            }
            observer.onCompleted()
            return Disposables.create()
        }
        let chain = source.map { $0 &+ 1 }.filter { $0 & 1 == 0 }.observe(on: CurrentThreadScheduler.instance)
        var subscription: Disposable?
        around {
            subscription = chain.subscribe(onNext: { sink.received &+= $0 })
        }
        subscription?.dispose()
        let expected = elements / 2
        guard sink.count(upTo: elements) == expected || elements == 0 else {
            throw BenchmarkFailure("elementPath: the sum of the delivered elements is wrong")
        }
        return expected
    }

    /// Sums what the consumer receives (a class, so the consumer's closure
    /// captures one reference and nothing escapes the benchmark).
    final class ElementSink {
        var received = 0

        /// Whether `received` is the sum of the even numbers 2...elements, and if so how many.
        func count(upTo elements: Int) -> Int {
            let evens = elements / 2
            return received == evens * (evens + 1) ? evens : -1
        }
    }
}
