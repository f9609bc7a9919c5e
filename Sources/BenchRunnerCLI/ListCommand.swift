import ArgumentParser
import BenchKit

/// `BenchRunner list`: every benchmark, variant, parameter set and metric.
struct List: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the benchmarks, their variants, parameters and metrics (the CSV's names).",
        discussion: "Exit status: 0 listed; 2 bad input (an unknown option, a --filter that matches nothing).")

    @OptionGroup var suite: SuiteOptions

    func run() throws {
        let runner = SuiteRunner(
            configuration: suite.configuration(recursionProbe: nil), filter: BenchmarkFilter(suite.patterns),
            counter: .disabled)
        let plans = try runner.selectedPlans()
        var lastBenchmark = ""
        for plan in plans {
            if plan.benchmark != lastBenchmark {
                lastBenchmark = plan.benchmark
                print("\(plan.benchmark)")
                let metrics = CSVSchema.benchmark(named: plan.benchmark)?.metrics ?? []
                for metric in metrics {
                    let exact = metric.isExactCount ? ", exact" : ""
                    print("    metric \(metric.name) [\(metric.unit)] (\(metric.direction.rawValue) is better\(exact))")
                }
            }
            let availability = plan.unavailableReason.map { "  (not available: \($0))" } ?? ""
            print("  \(plan.variant)  \(plan.params)\(availability)")
        }
    }
}
