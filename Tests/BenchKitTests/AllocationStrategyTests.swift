@testable import BenchKit
import XCTest

/// Which process times and which counts, for each `--allocator`.
final class AllocationStrategyTests: XCTestCase {
    func testDefaultTimesUnderSystemAndCountsInAJemallocChild() {
        let strategy = AllocationStrategy.choose(allocator: nil, countsOnly: false, jemallocInstalled: true)
        XCTAssertEqual(strategy.processAllocator, .system)
        XCTAssertEqual(strategy.pass, .elsewhere)
        XCTAssertEqual(strategy.child, .counts)
        XCTAssertNil(strategy.countsUnavailableReason)
    }

    func testDefaultWithoutJemallocSaysHowToInstallItAndLeavesCountsEmpty() {
        let strategy = AllocationStrategy.choose(allocator: nil, countsOnly: false, jemallocInstalled: false)
        XCTAssertEqual(strategy.processAllocator, .system)
        XCTAssertEqual(strategy.pass, .unavailable)
        XCTAssertNil(strategy.child)
        XCTAssertEqual(strategy.countsUnavailableReason, AllocatorLauncher.howToEnable)
        XCTAssertTrue(AllocatorLauncher.howToEnable.contains("libjemalloc"))
    }

    func testSystemTimesOnly() {
        let strategy = AllocationStrategy.choose(allocator: .system, countsOnly: false, jemallocInstalled: true)
        XCTAssertEqual(strategy.processAllocator, .system)
        XCTAssertEqual(strategy.pass, .unavailable)
        XCTAssertNil(strategy.child)
        XCTAssertEqual(strategy.countsUnavailableReason, AllocationStrategy.systemMeasuresTimesOnly)
    }

    func testJemallocTimesAndCountsInThisProcess() {
        let strategy = AllocationStrategy.choose(allocator: .jemalloc, countsOnly: false, jemallocInstalled: true)
        XCTAssertEqual(strategy.processAllocator, .jemalloc)
        XCTAssertEqual(strategy.pass, .here)
        XCTAssertNil(strategy.child)
    }

    func testBothTimesUnderSystemHereAndEverythingUnderJemallocInAChild() {
        let strategy = AllocationStrategy.choose(allocator: .both, countsOnly: false, jemallocInstalled: true)
        XCTAssertEqual(strategy.processAllocator, .system)
        XCTAssertEqual(strategy.pass, .elsewhere)
        XCTAssertEqual(strategy.child, .everything)
    }

    func testBothWithoutJemallocFallsBackToSystemTimes() {
        let strategy = AllocationStrategy.choose(allocator: .both, countsOnly: false, jemallocInstalled: false)
        XCTAssertEqual(strategy.pass, .unavailable)
        XCTAssertNil(strategy.child)
        XCTAssertEqual(strategy.countsUnavailableReason, AllocatorLauncher.howToEnable)
    }

    func testCountingChildOnlyCountsUnderJemalloc() {
        let strategy = AllocationStrategy.choose(allocator: .jemalloc, countsOnly: true, jemallocInstalled: true)
        XCTAssertEqual(strategy.processAllocator, .jemalloc)
        XCTAssertEqual(strategy.pass, .only)
        XCTAssertNil(strategy.child)
    }
}
