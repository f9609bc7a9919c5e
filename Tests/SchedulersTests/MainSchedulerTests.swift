import Dispatch
import Foundation
import Schedulers
import XCTest

final class MainSchedulerTests: XCTestCase {
    /// Runs everything already on the main queue, so that the main scheduler
    /// has nothing pending (main-queue FIFO: a marker behind it all).
    private func drainMainQueue() {
        XCTAssertTrue(Thread.isMainThread)
        let marker = DispatchProbe()
        DispatchQueue.main.async { marker.record("drained") }
        XCTAssertTrue(MainScheduler.runMainQueue(until: Date().addingTimeInterval(10), while: { marker.events.isEmpty }))
    }

    private func requireSerial<S: SerialScheduler & PeriodicScheduler>(_ scheduler: S) {}

    func testMainSchedulerIsASerialDispatchQueueScheduler() {
        let scheduler: SerialDispatchQueueScheduler = MainScheduler.instance
        requireSerial(scheduler)
        requireSerial(MainScheduler.instance)
        requireSerial(MainScheduler.asyncInstance)
    }

    func testWorkFromABackgroundThreadRunsOnTheMainThreadWhenTheMainQueueIsDriven() {
        XCTAssertTrue(isKernelMainThread(), "XCTest runs tests on the main thread")
        let probe = DispatchProbe()
        DispatchQueue.global().async {
            probe.record("scheduling from kernel main thread: \(isKernelMainThread())")
            _ = MainScheduler.instance.schedule(()) { _ in
                probe.record("main thread: \(Thread.isMainThread), kernel main thread: \(isKernelMainThread())")
                return Disposables.create()
            }
        }
        let ran = MainScheduler.runMainQueue(until: Date().addingTimeInterval(10), while: { probe.events.count < 2 })
        XCTAssertTrue(ran)
        XCTAssertEqual(probe.events, [
            "scheduling from kernel main thread: false",
            "main thread: true, kernel main thread: true",
        ])
    }

    func testRunLoopMainRunServicesTheMainQueueOnTheMainThread() {
        let probe = DispatchProbe()
        DispatchQueue.global().async {
            _ = MainScheduler.asyncInstance.schedule(()) { _ in
                probe.record("kernel main thread: \(isKernelMainThread())")
                return Disposables.create()
            }
        }
        let deadline = Date().addingTimeInterval(10)
        while probe.events.isEmpty && Date() < deadline {
            _ = RunLoop.main.run(mode: .default, before: Date().addingTimeInterval(0.05))
        }
        XCTAssertEqual(probe.events, ["kernel main thread: true"])
    }

    func testScheduleOnTheMainThreadRunsInlineWhenNothingIsPending() {
        drainMainQueue()
        var ran = false
        _ = MainScheduler.instance.schedule(()) { _ in
            ran = true
            return Disposables.create()
        }
        XCTAssertTrue(ran, "ran before schedule returned")
    }

    func testScheduleOnTheMainThreadKeepsFIFOOrderBehindPendingWork() {
        drainMainQueue()
        let probe = DispatchProbe()
        _ = MainScheduler.instance.scheduleInOrder(()) { _ in
            probe.record("queued first")
            return Disposables.create()
        }
        _ = MainScheduler.instance.schedule(()) { _ in
            probe.record("scheduled second")
            return Disposables.create()
        }
        probe.record("after scheduling")
        drainMainQueue()
        XCTAssertEqual(probe.events, ["after scheduling", "queued first", "scheduled second"])
        _ = MainScheduler.instance.schedule(()) { _ in
            probe.record("inline again")
            return Disposables.create()
        }
        XCTAssertEqual(probe.events.last, "inline again", "inline once nothing is pending")
    }

    func testNestedScheduleInsideAnInlineActionIsQueuedAfterIt() {
        drainMainQueue()
        let probe = DispatchProbe()
        _ = MainScheduler.instance.schedule(()) { _ in
            _ = MainScheduler.instance.schedule(()) { _ in
                probe.record("nested")
                return Disposables.create()
            }
            probe.record("outer")
            return Disposables.create()
        }
        drainMainQueue()
        XCTAssertEqual(probe.events, ["outer", "nested"])
    }

    func testScheduleInOrderNeverRunsInline() {
        drainMainQueue()
        var ran = false
        _ = MainScheduler.instance.scheduleInOrder(()) { _ in
            ran = true
            return Disposables.create()
        }
        XCTAssertFalse(ran)
        drainMainQueue()
        XCTAssertTrue(ran)
    }

    func testAsyncInstanceNeverRunsInline() {
        drainMainQueue()
        var ran = false
        _ = MainScheduler.asyncInstance.schedule(()) { _ in
            ran = true
            return Disposables.create()
        }
        XCTAssertFalse(ran)
        drainMainQueue()
        XCTAssertTrue(ran)
    }

    func testGuarantee5_DisposingBeforeStartSkipsAction() {
        drainMainQueue()
        let probe = DispatchProbe()
        let disposable = MainScheduler.instance.scheduleInOrder(()) { _ in
            probe.record("ran")
            return Disposables.create()
        }
        disposable.dispose()
        drainMainQueue()
        XCTAssertEqual(probe.events, [])
        // The skipped action no longer counts as pending: inline works again.
        var inline = false
        _ = MainScheduler.instance.schedule(()) { _ in
            inline = true
            return Disposables.create()
        }
        XCTAssertTrue(inline)
    }

    func testScheduleRelativeRunsOnTheMainThread() {
        let probe = DispatchProbe()
        _ = MainScheduler.instance.scheduleRelative((), dueTime: .milliseconds(2)) { _ in
            probe.record("kernel main thread: \(isKernelMainThread())")
            return Disposables.create()
        }
        XCTAssertTrue(dispatchEventually { !probe.events.isEmpty })
        XCTAssertEqual(probe.events, ["kernel main thread: true"])
    }

    func testSchedulePeriodicTicksOnTheMainThread() {
        let probe = DispatchProbe()
        let disposable = MainScheduler.instance.schedulePeriodic(0, startAfter: .milliseconds(1), period: .milliseconds(2)) { tick in
            probe.record("tick \(tick) main: \(isKernelMainThread())")
            return tick + 1
        }
        XCTAssertTrue(dispatchEventually { probe.events.count >= 3 })
        disposable.dispose()
        XCTAssertEqual(Array(probe.events.prefix(3)), ["tick 0 main: true", "tick 1 main: true", "tick 2 main: true"])
        XCTAssertNotNil(disposable as? PeriodicDisposable)
    }

    func testEnsureExecutingOnSchedulerPassesOnTheMainThread() {
        MainScheduler.ensureExecutingOnScheduler()
        MainScheduler.ensureExecutingOnScheduler(errorMessage: "not reached")
        MainScheduler.ensureRunningOnMainThread()
    }

    func testConcurrentMainSchedulerRunsInlineEvenWithMainSchedulerWorkPending() {
        drainMainQueue()
        let probe = DispatchProbe()
        _ = MainScheduler.instance.scheduleInOrder(()) { _ in
            probe.record("queued")
            return Disposables.create()
        }
        _ = ConcurrentMainScheduler.instance.schedule(()) { _ in
            probe.record("concurrent main inline")
            return Disposables.create()
        }
        XCTAssertEqual(probe.events, ["concurrent main inline"])
        drainMainQueue()
        XCTAssertEqual(probe.events, ["concurrent main inline", "queued"])
    }

    func testConcurrentMainSchedulerRunsBackgroundWorkOnTheMainThread() {
        let probe = DispatchProbe()
        DispatchQueue.global().async {
            _ = ConcurrentMainScheduler.instance.schedule(()) { _ in
                probe.record("kernel main thread: \(isKernelMainThread())")
                return Disposables.create()
            }
        }
        XCTAssertTrue(dispatchEventually { !probe.events.isEmpty })
        XCTAssertEqual(probe.events, ["kernel main thread: true"])
        let periodic: PeriodicSchedulerType = ConcurrentMainScheduler.instance
        XCTAssertLessThan(abs(periodic.now.timeIntervalSinceNow), 60)
    }

    func testTwoMainSchedulerInstancesShareOneFIFOOrder() {
        drainMainQueue()
        let other = MainScheduler()
        let probe = DispatchProbe()
        _ = other.scheduleInOrder(()) { _ in
            probe.record("queued by another instance")
            return Disposables.create()
        }
        _ = MainScheduler.instance.schedule(()) { _ in
            probe.record("scheduled on the shared instance")
            return Disposables.create()
        }
        XCTAssertEqual(probe.events, [], "not inline while the main queue holds MainScheduler work")
        drainMainQueue()
        XCTAssertEqual(probe.events, ["queued by another instance", "scheduled on the shared instance"])
    }
}
