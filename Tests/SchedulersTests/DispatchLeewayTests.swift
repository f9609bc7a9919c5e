import Dispatch
import Foundation
@testable import Schedulers
import XCTest

/// Per-call leeway on the dispatch schedulers' relative and periodic scheduling.
final class DispatchLeewayTests: XCTestCase {
    func testTheCallsLeewayOverridesTheSchedulersAndNegativeCountsAsZero() {
        let configuration = DispatchQueueConfiguration(queue: DispatchQueue(label: "test.leeway"), leeway: .milliseconds(3))
        XCTAssertEqual(configuration.effectiveLeeway(nil), .milliseconds(3))
        XCTAssertEqual(configuration.effectiveLeeway(.milliseconds(7)), .milliseconds(7))
        XCTAssertEqual(configuration.effectiveLeeway(.microseconds(0)), .microseconds(0))
        XCTAssertEqual(configuration.effectiveLeeway(.nanoseconds(-5)), .nanoseconds(0))
        XCTAssertEqual(configuration.effectiveLeeway(.seconds(-1)), .nanoseconds(0))
        XCTAssertEqual(configuration.effectiveLeeway(.never), .never)
    }

    func testRelativeSchedulingWithALeewayRunsOnceAndCanBeDisposed() {
        let schedulers: [(String, (RxTimeInterval, DispatchTimeInterval, @escaping (Int) -> Disposable) -> Disposable)] = [
            ("serial", { due, leeway, action in
                SerialDispatchQueueScheduler(internalSerialQueueName: "test.leeway.serial")
                    .scheduleRelative(1, dueTime: due, leeway: leeway, action: action)
            }),
            ("concurrent", { due, leeway, action in
                ConcurrentDispatchQueueScheduler(qos: .default).scheduleRelative(1, dueTime: due, leeway: leeway, action: action)
            }),
        ]
        for (name, schedule) in schedulers {
            let ran = DispatchProbe()
            _ = schedule(.milliseconds(2), .milliseconds(5)) { value in
                ran.record("ran \(value)")
                return Disposables.create()
            }
            XCTAssertTrue(dispatchEventually { ran.events == ["ran 1"] }, name)
            let disposed = DispatchProbe()
            let pending = schedule(.seconds(30), .nanoseconds(-1)) { _ in
                disposed.record("ran")
                return Disposables.create()
            }
            pending.dispose()
            XCTAssertEqual(disposed.events, [], name)
        }
    }

    /// `ConcurrentMainScheduler` has the overloads too (it is a
    /// `DispatchQueueScheduler` on the main queue): the action runs on the
    /// main thread once the main queue is driven, and disposing before the
    /// due time keeps it from running.
    func testTheConcurrentMainSchedulerTakesALeewayAndRunsOnTheMainThread() {
        XCTAssertTrue(Thread.isMainThread)
        let scheduler = ConcurrentMainScheduler.instance
        let ran = DispatchProbe()
        _ = scheduler.scheduleRelative(1, dueTime: .milliseconds(2), leeway: .milliseconds(5)) { value in
            ran.record("ran \(value) on main: \(Thread.isMainThread)")
            return Disposables.create()
        }
        let disposed = DispatchProbe()
        scheduler.scheduleRelative(1, dueTime: .milliseconds(1), leeway: .nanoseconds(0)) { _ in
            disposed.record("ran")
            return Disposables.create()
        }.dispose()
        XCTAssertTrue(MainScheduler.runMainQueue(until: Date().addingTimeInterval(10), while: { ran.events.isEmpty }))
        XCTAssertEqual(ran.events, ["ran 1 on main: true"])
        XCTAssertEqual(disposed.events, [])
        XCTAssertNil(scheduler.asSerialScheduler, "not FIFO against what it enqueued: no serial promise")
        XCTAssertNotNil(MainScheduler.instance.asSerialScheduler)
        XCTAssertNil(ConcurrentDispatchQueueScheduler(qos: .default).asSerialScheduler)
    }

    func testPeriodicSchedulingWithALeewayTicksWithStateAndReturnsAPeriodicDisposable() {
        let serial = SerialDispatchQueueScheduler(internalSerialQueueName: "test.leeway.periodic")
        let concurrent = ConcurrentDispatchQueueScheduler(qos: .default)
        let jobs: [(String, (DispatchProbe) -> Disposable)] = [
            ("serial", { probe in
                serial.schedulePeriodic(0, startAfter: .milliseconds(1), period: .milliseconds(1), leeway: .milliseconds(1)) { tick in
                    probe.record("\(tick)")
                    return tick + 1
                }
            }),
            ("concurrent", { probe in
                concurrent.schedulePeriodic(0, startAfter: .milliseconds(1), period: .milliseconds(1), leeway: .milliseconds(1)) { tick in
                    probe.record("\(tick)")
                    return tick + 1
                }
            }),
        ]
        for (name, start) in jobs {
            let probe = DispatchProbe()
            let disposable = start(probe)
            XCTAssertTrue(dispatchEventually { probe.events.count >= 3 }, name)
            XCTAssertTrue(disposable is PeriodicDisposable, name)
            disposable.dispose()
            XCTAssertTrue((disposable as? PeriodicDisposable)?.isDisposed == true, name)
            XCTAssertEqual(Array(probe.events.prefix(3)), ["0", "1", "2"], name)
        }
    }

    /// The RxSwift-shaped calls, without a leeway, still resolve to the
    /// original overloads (the scheduler's leeway).
    func testTheCallsWithoutALeewayStillCompileAndRun() {
        let scheduler = SerialDispatchQueueScheduler(internalSerialQueueName: "test.leeway.compat", leeway: .milliseconds(1))
        let probe = DispatchProbe()
        _ = scheduler.scheduleRelative((), dueTime: .milliseconds(1)) { _ in
            probe.record("relative")
            return Disposables.create()
        }
        XCTAssertTrue(dispatchEventually { probe.events == ["relative"] })
        let periodic = scheduler.schedulePeriodic((), startAfter: .milliseconds(1), period: .milliseconds(1)) { _ in
            probe.record("tick")
        }
        XCTAssertTrue(dispatchEventually { probe.events.count >= 2 })
        periodic.dispose()
    }
}
