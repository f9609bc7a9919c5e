import Dispatch
import Schedulers
import XCTest
@testable import StressKit

/// The library's own schedulers are registrations made into
/// `StressScheduler`s through a user's initialiser; only the scenario choice
/// and exploration are theirs alone.
final class LibrarySchedulerRegistrationTests: XCTestCase {
    func testTheBuiltinSchedulersAreTheLibrarysRegistrationsInOrderAndExplorable() {
        let builtin = ScenarioCatalog.builtinSchedulers
        XCTAssertEqual(
            builtin.map(\.name), ["serial-dispatch", "concurrent-dispatch", "operation-queue", "main", "concurrent-main"])
        for scheduler in builtin {
            XCTAssertEqual(scheduler.registration.name, scheduler.name)
            XCTAssertTrue(scheduler.explorable, scheduler.name)
            XCTAssertTrue(scheduler.holdsBehindGate, scheduler.name)
        }
        XCTAssertEqual(builtin.filter(\.isSerial).map(\.name), ["serial-dispatch", "main"])
        XCTAssertEqual(builtin.filter(\.isMainScheduler).map(\.name), ["main"])
    }

    func testTheLibrarysScenarioChoiceReplacesTheOneItsConformancesGive() throws {
        let byName = Dictionary(uniqueKeysWithValues: ScenarioCatalog.builtinSchedulers.map { ($0.name, $0) })
        let common: Set<StressScheduler.ScenarioGroup> = [.action, .observeOn, .subscribeOn, .periodic]
        XCTAssertEqual(byName["serial-dispatch"]?.scenarios, common.union([.observeOnGenericPath]))
        XCTAssertEqual(byName["concurrent-dispatch"]?.scenarios, common.union([.periodicEmulated]))
        for name in ["operation-queue", "main", "concurrent-main"] {
            XCTAssertEqual(byName[name]?.scenarios, common, name)
        }
        // The same registration, taken as a user's, gets what its conformances give and is not explorable.
        let asUsers = StressScheduler(LibrarySchedulers.main)
        XCTAssertFalse(asUsers.explorable)
        XCTAssertEqual(asUsers.scenarios, common.union([.observeOnGenericPath, .periodicEmulated]))
    }

    /// The main schedulers run their work on the main queue, which the test's
    /// own thread holds: their check is left to `dispose-vs-subscribeOn.main`.
    func testTheOffMainRegistrationsPassTheCheckAUsersMustPass() {
        let offMain = [LibrarySchedulers.serialDispatch, LibrarySchedulers.concurrentDispatch, LibrarySchedulers.operationQueue]
        for registration in offMain {
            XCTAssertNoThrow(try registration.check(), registration.name)
        }
    }

    func testTheConcurrentGateHoldsTheNextActionUntilItReturns() {
        let made = StressScheduler(LibrarySchedulers.concurrentDispatch).make()
        defer { made.finish() }
        let gateOpen = DispatchSemaphore(value: 0)
        let order = Locked<[String]>([])
        made.enqueueGate {
            gateOpen.wait()
            order.withLock { $0.append("gate") }
        }
        let ran = DispatchSemaphore(value: 0)
        _ = made.scheduler.schedule(()) { _ in
            order.withLock { $0.append("action") }
            ran.signal()
            return Disposables.create()
        }
        XCTAssertEqual(ran.wait(timeout: .now() + 0.2), .timedOut, "the action started while the gate was closed")
        gateOpen.signal()
        XCTAssertEqual(ran.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(order.withLock { $0 }, ["gate", "action"])
    }
}
