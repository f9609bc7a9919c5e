import BenchAnalysis

extension SuiteSignature {
    /// The default and the quick suite of the active registry's benchmarks,
    /// as their plans write them: what `BenchRunner results` reads a run's
    /// kind against.
    public static func standardSuites() throws -> [SuiteSignature] {
        let suites: [(String, SuiteConfiguration)] = [
            ("default", .standard(recursionProbe: nil)), ("quick", .quick(recursionProbe: nil)),
        ]
        return try suites.map { name, configuration in
            let plans = try SuiteRunner(configuration: configuration, counter: .disabled).selectedPlans()
            return SuiteSignature(name: name, plans: plans.map { ($0.benchmark, $0.variantID.name, $0.params) })
        }
    }
}
