import XCTest
@testable import StressKit

/// The Swift Concurrency bridge's scenarios against the real library: a
/// short run breaks no guarantee, leaks nothing, and is in the catalog.
final class ConcurrencyBridgeScenarioTests: XCTestCase {
    func testValuesCancellationVersusDeliveryBreaksNothingInAShortRun() {
        let result = StressRunner(limit: .iterations(400), seed: 3, batchSize: 16).run(ValuesCancelVersusDelivery())
        XCTAssertEqual(result.forbiddenCount, 0, "\(result)")
        XCTAssertEqual(result.leaked, 0)
    }

    func testActorJobVersusSchedulerTearDownBreaksNothingInAShortRun() {
        let result = StressRunner(limit: .iterations(400), seed: 3, batchSize: 16).run(ActorJobVersusSchedulerTeardown())
        XCTAssertEqual(result.forbiddenCount, 0, "\(result)")
        XCTAssertEqual(result.leaked, 0)
    }

    func testTheCatalogRunsBothBridgeScenarios() {
        let names = ScenarioCatalog.all().map(\.name)
        XCTAssertTrue(names.contains("cancel-vs-values.task"))
        XCTAssertTrue(names.contains("actor-job-vs-teardown.serial-dispatch"))
    }
}
