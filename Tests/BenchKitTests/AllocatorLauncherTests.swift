@testable import BenchKit
import XCTest

final class AllocatorLauncherTests: XCTestCase {
    func testJemallocRequestedAndInstalledReexecutesWithPreloadAndNoThreadCache() {
        let decision = AllocatorLauncher.decide(
            allocator: .jemalloc, environment: ["PATH": "/bin"], jemallocLoaded: false, tcacheEnabled: false,
            libraryPath: "/lib/libjemalloc.so.2")
        guard case .reexecute(let environment) = decision else {
            return XCTFail("expected a re-execution, got \(decision)")
        }
        XCTAssertEqual(environment["LD_PRELOAD"], "/lib/libjemalloc.so.2")
        XCTAssertEqual(environment["MALLOC_CONF"], "tcache:false")
        XCTAssertNotNil(environment[AllocatorLauncher.guardVariable])
        XCTAssertEqual(environment["PATH"], "/bin")
    }

    func testJemallocMissingRunsOnWithoutIt() {
        XCTAssertEqual(
            AllocatorLauncher.decide(
                allocator: .jemalloc, environment: [:], jemallocLoaded: false, tcacheEnabled: false, libraryPath: nil),
            .proceedWithoutJemalloc)
    }

    func testReexecutedProcessNeverReexecutesAgain() {
        XCTAssertEqual(
            AllocatorLauncher.decide(
                allocator: .jemalloc, environment: [AllocatorLauncher.guardVariable: "1"], jemallocLoaded: false,
                tcacheEnabled: false, libraryPath: "/lib/libjemalloc.so.2"),
            .proceedWithoutJemalloc)
    }

    func testJemallocAlreadyLoadedWithoutThreadCacheProceeds() {
        XCTAssertEqual(
            AllocatorLauncher.decide(
                allocator: .jemalloc, environment: [:], jemallocLoaded: true, tcacheEnabled: false,
                libraryPath: "/lib/libjemalloc.so.2"),
            .proceed)
    }

    func testSystemRequestedUnderPreloadedJemallocDropsThePreload() {
        let decision = AllocatorLauncher.decide(
            allocator: .system, environment: ["LD_PRELOAD": "/lib/libjemalloc.so.2"], jemallocLoaded: true,
            tcacheEnabled: false, libraryPath: "/lib/libjemalloc.so.2")
        guard case .reexecute(let environment) = decision else {
            return XCTFail("expected a re-execution, got \(decision)")
        }
        XCTAssertEqual(environment["LD_PRELOAD"], "")
    }

    func testCounterWithoutJemallocLeavesCountsEmpty() {
        let counter = AllocationCounter.disabled
        XCTAssertNil(counter.snapshot())
        XCTAssertNil(AllocationCounter.delta(from: counter.snapshot(), to: counter.snapshot()))
    }
}
