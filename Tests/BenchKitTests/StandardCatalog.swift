@testable import BenchAnalysis
import BenchKit

/// Makes the standard registry's benchmarks the catalogue `CSVSchema` lists,
/// as `BenchRunnerMain` does before it runs a command: compare, report and
/// the schema's lookups judge rows by it.
enum StandardCatalog {
    private static let installed: Void = SchedulerRegistry.activate(.standard)

    /// Installs the catalogue once per test process.
    static func install() {
        installed
    }
}
