import CAllocationCounter
import Dispatch
import Foundation
import Schedulers
import XCTest

final class SerialDispatchQueueSchedulerTests: XCTestCase {
    private func requireSerial<S: SerialScheduler & PeriodicScheduler>(_ scheduler: S) -> S {
        scheduler
    }

    func testConformsToSerialSchedulerAndPeriodicScheduler() {
        let scheduler = SerialDispatchQueueScheduler(internalSerialQueueName: "test.conformance")
        _ = requireSerial(scheduler)
        let asSchedulerType: SchedulerType = scheduler
        XCTAssertNotNil(asSchedulerType as? SerialSchedulerType)
    }

    func testActionsRunInFIFOOrder() {
        let scheduler = SerialDispatchQueueScheduler(internalSerialQueueName: "test.fifo")
        let probe = DispatchProbe()
        let done = expectation(description: "all ran")
        for index in 0..<500 {
            _ = scheduler.schedule(index) { index in
                probe.record("\(index)")
                if index == 499 { done.fulfill() }
                return Disposables.create()
            }
        }
        wait(for: [done], timeout: 10)
        XCTAssertEqual(probe.events, (0..<500).map { "\($0)" })
    }

    func testScheduleInOrderNeverRunsInline() {
        let scheduler = SerialDispatchQueueScheduler(internalSerialQueueName: "test.inline")
        let probe = DispatchProbe()
        let done = expectation(description: "inner ran")
        _ = scheduler.schedule(()) { _ in
            _ = scheduler.scheduleInOrder(()) { _ in
                probe.record("inner")
                done.fulfill()
                return Disposables.create()
            }
            _ = scheduler.schedule(()) { _ in
                probe.record("inner schedule")
                return Disposables.create()
            }
            probe.record("after scheduling")
            return Disposables.create()
        }
        wait(for: [done], timeout: 5)
        XCTAssertTrue(dispatchEventually { probe.events.count == 3 })
        XCTAssertEqual(probe.events, ["after scheduling", "inner", "inner schedule"])
    }

    func testConcurrentQueuePassedInIsMadeSerial() {
        let concurrent = DispatchQueue(label: "test.concurrent.target", attributes: .concurrent)
        let scheduler = SerialDispatchQueueScheduler(queue: concurrent, internalSerialQueueName: "test.made.serial")
        let probe = DispatchProbe()
        let done = expectation(description: "all ran")
        for index in 0..<200 {
            _ = scheduler.schedule(index) { index in
                probe.enter()
                if index % 10 == 0 { usleep(200) }
                probe.record("\(index)")
                probe.leave()
                if index == 199 { done.fulfill() }
                return Disposables.create()
            }
        }
        wait(for: [done], timeout: 10)
        XCTAssertEqual(probe.maxRunning, 1)
        XCTAssertEqual(probe.events, (0..<200).map { "\($0)" })
    }

    func testQoSInitialiserRunsSerially() {
        let scheduler = SerialDispatchQueueScheduler(qos: .userInitiated)
        let probe = DispatchProbe()
        let done = expectation(description: "all ran")
        for index in 0..<100 {
            _ = scheduler.schedule(index) { index in
                probe.enter()
                probe.record("\(index)")
                probe.leave()
                if index == 99 { done.fulfill() }
                return Disposables.create()
            }
        }
        wait(for: [done], timeout: 10)
        XCTAssertEqual(probe.maxRunning, 1)
        XCTAssertEqual(probe.events, (0..<100).map { "\($0)" })
    }

    func testSerialQueueConfigurationIsAppliedToTheNewQueue() {
        let target = DispatchQueue(label: "test.configured.target")
        let key = DispatchSpecificKey<String>()
        target.setSpecific(key: key, value: "target")
        let scheduler = SerialDispatchQueueScheduler(
            internalSerialQueueName: "test.configured",
            serialQueueConfiguration: { queue in queue.setTarget(queue: target) }
        )
        let seen = expectation(description: "ran on the configured target")
        _ = scheduler.schedule(()) { _ in
            if DispatchQueue.getSpecific(key: key) == "target" { seen.fulfill() }
            return Disposables.create()
        }
        wait(for: [seen], timeout: 5)
    }

    func testDisposingRelativeAfterItRanDisposesResult() {
        let scheduler = SerialDispatchQueueScheduler(internalSerialQueueName: "test.relative.result")
        let result = DisposalCounter()
        let ran = expectation(description: "ran")
        let disposable = scheduler.scheduleRelative((), dueTime: .milliseconds(1)) { _ in
            ran.fulfill()
            return result
        }
        wait(for: [ran], timeout: 5)
        dispatchDrain(scheduler)
        disposable.dispose()
        XCTAssertEqual(result.disposeCount, 1)
    }

    func testNowIsTheWallClock() {
        let scheduler = SerialDispatchQueueScheduler(internalSerialQueueName: "test.now")
        XCTAssertLessThan(abs(scheduler.now.timeIntervalSinceNow), 60)
    }

    /// Counts the allocations of `count` calls made from generic code, as an
    /// operator would make them: the closure is passed as is, no thunk.
    private func allocationsOfScheduleInOrder<S: SerialScheduler, State>(
        on scheduler: S, state: State, count: Int
    ) -> UInt64 {
        let action: (State) -> Disposable = { _ in Disposables.create() }
        let before = allocation_counter_read_thread()
        for _ in 0..<count {
            _ = scheduler.scheduleInOrder(state, action: action)
        }
        return allocation_counter_read_thread() - before
    }

    func testScheduleInOrderAllocatesTheItemPlusWhatDispatchAsyncNeeds() {
        let scheduler = SerialDispatchQueueScheduler(internalSerialQueueName: "test.allocations")
        let gate = DispatchSemaphore(value: 0)
        _ = scheduler.schedule(()) { _ in
            gate.wait()
            return Disposables.create()
        }
        _ = allocationsOfScheduleInOrder(on: scheduler, state: 1, count: 100)
        let count = 1_000
        let allocations = allocationsOfScheduleInOrder(on: scheduler, state: 1, count: count)
        gate.signal()
        dispatchDrain(scheduler)
        // One item (the disposable) plus the block `DispatchQueue.async`
        // copies and its context: 3 per action, with a little slack for
        // libdispatch's continuation cache refills.
        XCTAssertLessThanOrEqual(allocations, UInt64(count * 3 + count / 10), "\(allocations) allocations for \(count) actions")
    }
}
