import Foundation
@testable import Schedulers
import SchedulersTesting
import XCTest

/// Guarantee 8 for sequences: every sink and scheduled item is freed after
/// disposal or completion. Counts live sinks (a debug-only counter) and
/// watches objects the subscription holds through weak references.
final class LeakSequencesTests: XCTestCase {
    private final class Resource {}

    private var liveSinks: Int {
        LiveInstances.sinks.load(ordering: .relaxed)
    }

    private var liveDisposers: Int {
        LiveInstances.disposers.load(ordering: .relaxed)
    }

    /// Other tests may still be releasing sinks on dispatch threads: wait
    /// until the count has settled before taking a baseline.
    private func settledBaseline() -> (sinks: Int, disposers: Int) {
        var previous = (liveSinks, liveDisposers)
        for _ in 0..<100 {
            Thread.sleep(forTimeInterval: 0.005)
            let current = (liveSinks, liveDisposers)
            if current == previous {
                return current
            }
            previous = current
        }
        return previous
    }

    private func assertNothingLeft(
        since baseline: (sinks: Int, disposers: Int), file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertLessThanOrEqual(liveSinks, baseline.sinks, "sinks leaked", file: file, line: line)
        XCTAssertLessThanOrEqual(liveDisposers, baseline.disposers, "disposers leaked", file: file, line: line)
    }

    func testTheCounterSeesLiveSinks() {
        let baseline = settledBaseline()
        let subscription = Observable<Int>.never().map { $0 }.filter { _ in true }.subscribe()
        XCTAssertEqual(liveSinks - baseline.sinks, 2)
        XCTAssertEqual(liveDisposers - baseline.disposers, 2)
        subscription.dispose()
        assertNothingLeft(since: baseline)
    }

    func testNothingLeftAfterCompletion() {
        let baseline = settledBaseline()
        let serial = ManualSerialScheduler()
        let virtual = TestScheduler(initialClock: 0)
        var completed = false
        _ = Observable<Int>.range(start: 0, count: 100)
            .subscribe(on: virtual)
            .map { $0 * 2 }
            .filter { $0 % 3 == 0 }
            .observe(on: serial)
            .observe(on: serial, path: .generic)
            .take(10)
            .subscribe(onCompleted: { completed = true })
        virtual.start()
        serial.runQueued()
        virtual.start()
        XCTAssertTrue(completed)
        assertNothingLeft(since: baseline)
    }

    func testNothingLeftAfterDispose() {
        let baseline = settledBaseline()
        let serial = ManualSerialScheduler()
        let virtual = TestScheduler(initialClock: 0)
        weak var weakResource: Resource?
        do {
            let resource = Resource()
            weakResource = resource
            let subject = SequencesTestSubject<Int>()
            let subscription = subject.observable
                .subscribe(on: virtual)
                .observe(on: serial)
                .map { _ in resource }
                .observe(on: serial, path: .generic)
                .subscribe(onNext: { _ in })
            virtual.start()
            subject.send(1)
            subject.send(2)
            subscription.dispose()
        }
        // Pending drains and the scheduled disposal still hold the sinks until they run.
        serial.runQueued()
        virtual.start()
        XCTAssertNil(weakResource, "the closure and what it captures were released")
        assertNothingLeft(since: baseline)
    }

    func testNothingLeftAfterDisposingAnIntervalOrATimer() {
        let baseline = settledBaseline()
        let virtual = TestScheduler(initialClock: 0)
        weak var weakResource: Resource?
        do {
            let resource = Resource()
            weakResource = resource
            let interval = Observable<Int>.interval(.seconds(1), scheduler: virtual)
                .subscribe(onNext: { _ in withExtendedLifetime(resource) {} })
            let timer = Observable<Int>.timer(.seconds(50), scheduler: virtual)
                .subscribe(onNext: { _ in withExtendedLifetime(resource) {} })
            virtual.advanceTo(10)
            interval.dispose()
            timer.dispose()
        }
        virtual.start()
        XCTAssertNil(weakResource)
        assertNothingLeft(since: baseline)
    }

    func testNothingLeftAfterATimerCompletes() {
        let baseline = settledBaseline()
        let virtual = TestScheduler(initialClock: 0)
        var completed = false
        _ = Observable<Int>.timer(.seconds(5), scheduler: virtual).subscribe(onCompleted: { completed = true })
        virtual.start()
        XCTAssertTrue(completed)
        assertNothingLeft(since: baseline)
    }

    func testNothingLeftAfterAnErrorThroughEveryOperator() {
        let baseline = settledBaseline()
        let serial = ManualSerialScheduler()
        var failed = false
        _ = Observable<Int>.error(SequencesTestError())
            .map { $0 }
            .observe(on: serial)
            .take(3)
            .subscribe(onError: { _ in failed = true })
        serial.runQueued()
        XCTAssertTrue(failed)
        assertNothingLeft(since: baseline)
    }

    func testNothingLeftOnDispatchSchedulersAfterDispose() {
        let baseline = settledBaseline()
        let serial = SerialDispatchQueueScheduler(internalSerialQueueName: "leak")
        let concurrent = ConcurrentDispatchQueueScheduler(qos: .default)
        let received = expectation(description: "first element")
        received.assertForOverFulfill = false
        let subscription = Observable<Int>.interval(.milliseconds(1), scheduler: concurrent)
            .observe(on: serial)
            .subscribe(on: concurrent)
            .subscribe(onNext: { _ in received.fulfill() })
        wait(for: [received], timeout: 10)
        subscription.dispose()
        let deadline = Date().addingTimeInterval(5)
        // The dispatch threads release sinks and disposers after dispose
        // returns, each on its own schedule: wait for both counts.
        while liveSinks > baseline.sinks || liveDisposers > baseline.disposers, Date() < deadline {
            Thread.sleep(forTimeInterval: 0.005)
        }
        assertNothingLeft(since: baseline)
    }
}
