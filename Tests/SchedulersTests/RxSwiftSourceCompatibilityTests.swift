import Dispatch
import Foundation
import Schedulers  // was: import RxSwift
import SchedulersTesting  // was: import RxTest
import XCTest

// MARK: - The snippet
//
// Written as a newcomer would write it against RxSwift 6, using only
// schedulers, disposables and recursion. Nothing below this line and above
// the tests was adapted: only the two imports changed.

/// Counts down on whatever scheduler it is given, one number per interval.
final class Countdown {
    private let disposeBag = DisposeBag()
    private let scheduler: SchedulerType
    private let running = SerialDisposable()
    private let lock = NSLock()
    private var _announced: [Int] = []

    var announced: [Int] {
        lock.lock()
        defer { lock.unlock() }
        return _announced
    }

    init(scheduler: SchedulerType) {
        self.scheduler = scheduler
        running.disposed(by: disposeBag)
    }

    func start(from first: Int, every interval: RxTimeInterval) {
        running.disposable = scheduler.scheduleRecursive(first, dueTime: interval) { [weak self] remaining, recursive in
            guard let self = self else { return }
            self.lock.lock()
            self._announced.append(remaining)
            self.lock.unlock()
            if remaining > 0 {
                recursive.schedule(remaining - 1, dueTime: interval)
            }
        }
    }

    func stop() {
        running.disposable = Disposables.create()
    }
}

/// Runs `work` on `scheduler` and hands back what cancels it.
func runWork(on scheduler: ImmediateSchedulerType, _ work: @escaping () -> Void) -> Disposable {
    return scheduler.schedule(()) { _ in
        work()
        return Disposables.create()
    }
}

/// Every `period`, increments a counter, starting after `delay`.
func tick(
    on scheduler: SchedulerType,
    after delay: RxTimeInterval,
    every period: RxTimeInterval,
    onTick: @escaping (Int) -> Void
) -> Disposable {
    return scheduler.schedulePeriodic(0, startAfter: delay, period: period) { count in
        onTick(count)
        return count + 1
    }
}

// MARK: - The tests of what the snippet did

/// Guarantee: code written against RxSwift 6's scheduler and disposable
/// surface builds after changing its import, and behaves the same.
final class RxSwiftSourceCompatibilityTests: XCTestCase {
    func testTrampolineSnippetRunsNestedWorkInOrder() {
        var log: [String] = []
        var disposeBag = DisposeBag()
        let trampoline = CurrentThreadScheduler.instance

        trampoline.schedule(()) { _ in
            log.append("outer")
            _ = trampoline.schedule(()) { _ in
                log.append("nested")
                return Disposables.create()
            }
            log.append("outer done, required: \(CurrentThreadScheduler.isScheduleRequired)")
            return Disposables.create { log.append("outer resource released") }
        }
        .disposed(by: disposeBag)

        runWork(on: trampoline) { log.append("performed") }.disposed(by: disposeBag)

        _ = trampoline.scheduleRecursive(3) { remaining, recurse in
            log.append("countdown \(remaining)")
            if remaining > 0 {
                recurse(remaining - 1)
            }
        }

        disposeBag = DisposeBag()  // the usual way to dispose everything at once

        XCTAssertEqual(log, [
            "outer", "outer done, required: false", "nested", "performed",
            "countdown 3", "countdown 2", "countdown 1", "countdown 0",
            "outer resource released",
        ])
    }

    func testDisposablesSnippetReleasesEachResourceOnce() {
        var released: [String] = []
        let bag = DisposeBag()

        let serial = SerialDisposable()
        serial.disposable = Disposables.create { released.append("first download") }
        serial.disposable = Disposables.create { released.append("second download") }
        serial.disposed(by: bag)

        let composite = CompositeDisposable()
        let observerKey = composite.insert(Disposables.create { released.append("observer") })
        _ = composite.insert(Disposables.create { released.append("timer") })
        if let observerKey = observerKey {
            composite.remove(for: observerKey)
        }
        let pair = Disposables.create(
            Disposables.create { released.append("left") },
            Disposables.create { released.append("right") }
        )
        let many = Disposables.create([
            Disposables.create { released.append("a") },
            Disposables.create { released.append("b") },
            Disposables.create { released.append("c") },
        ])
        let single = SingleAssignmentDisposable()
        single.setDisposable(Disposables.create { released.append("single") })
        let flag = BooleanDisposable()
        bag.insert(composite, pair, many, single, flag)
        bag.insert {
            Disposables.create { released.append("built 1") }
            Disposables.create { released.append("built 2") }
        }

        XCTAssertEqual(released, ["first download", "observer"])
        XCTAssertEqual(composite.count, 1)
        serial.dispose()
        composite.dispose()
        pair.dispose()
        many.dispose()
        single.dispose()
        flag.dispose()
        serial.dispose()
        XCTAssertTrue(flag.isDisposed && single.isDisposed && composite.isDisposed)
        XCTAssertEqual(
            released,
            ["first download", "observer", "second download", "timer", "left", "right", "a", "b", "c", "single"])
    }

    func testCountdownSnippetOnATestSchedulerAnnouncesAtEachInterval() {
        let scheduler = TestScheduler(initialClock: 0)
        let countdown = Countdown(scheduler: scheduler)
        var times: [Int] = []
        let clock = scheduler.scheduleRelative((), dueTime: .seconds(1)) { _ in
            times.append(scheduler.clock)
            return Disposables.create()
        }
        countdown.start(from: 3, every: .seconds(10))
        scheduler.advanceTo(25)
        XCTAssertEqual(countdown.announced, [3, 2])
        countdown.stop()
        scheduler.start()
        XCTAssertEqual(countdown.announced, [3, 2], "stop() cancelled the pending announcement")
        XCTAssertEqual(times, [1])
        clock.dispose()
    }

    func testTickSnippetOnATestSchedulerTicksUntilDisposed() {
        let scheduler = TestScheduler(initialClock: 0)
        var ticks: [Int] = []
        let ticking = tick(on: scheduler, after: .seconds(5), every: .seconds(10)) { count in
            ticks.append(count)
        }
        scheduler.advanceTo(40)
        ticking.dispose()
        scheduler.advanceTo(100)
        XCTAssertEqual(ticks, [0, 1, 2, 3])
    }

    func testDispatchSnippetRunsOnTheBackgroundAndTheMainScheduler() {
        let background = SerialDispatchQueueScheduler(qos: .userInitiated)
        let countdown = Countdown(scheduler: background)
        countdown.start(from: 2, every: .milliseconds(1))

        let ticked = expectation(description: "three ticks on the background scheduler")
        let tickCount = NSLock()
        var ticks = 0
        let ticking = tick(on: background, after: .milliseconds(1), every: .milliseconds(1)) { _ in
            tickCount.lock()
            ticks += 1
            if ticks == 3 {
                ticked.fulfill()
            }
            tickCount.unlock()
        }

        let later = expectation(description: "relative work on the background scheduler")
        _ = background.scheduleRelative("payload", dueTime: .milliseconds(2)) { payload in
            XCTAssertEqual(payload, "payload")
            later.fulfill()
            return Disposables.create()
        }
        wait(for: [ticked, later], timeout: 10)
        ticking.dispose()

        XCTAssertTrue(Thread.isMainThread, "XCTest runs tests on the main thread")
        var ranOnMain = false
        _ = runWork(on: MainScheduler.instance) {
            MainScheduler.ensureExecutingOnScheduler()
            ranOnMain = Thread.isMainThread
        }
        XCTAssertTrue(ranOnMain, "MainScheduler runs at once when already on the main thread")

        let finished = expectation(description: "countdown reaches zero")
        func poll() {
            if countdown.announced.last == 0 {
                finished.fulfill()
            } else {
                _ = background.scheduleRelative((), dueTime: .milliseconds(1)) { _ in
                    poll()
                    return Disposables.create()
                }
            }
        }
        poll()
        wait(for: [finished], timeout: 10)
        XCTAssertEqual(countdown.announced, [2, 1, 0])
    }

    func testReferenceDocumentSpellingsRunToo() {
        // RxSwift's Schedulers guide spells the labels out: `schedule(state:action:)` and friends.
        let scheduler = TestScheduler(initialClock: 0)
        var log: [String] = []
        _ = scheduler.schedule(state: "now") { state in
            log.append(state)
            return Disposables.create()
        }
        _ = scheduler.scheduleRelative(state: "later", dueTime: .seconds(3)) { state in
            log.append(state)
            return Disposables.create()
        }
        let periodic = scheduler.schedulePeriodic(state: 0, startAfter: .seconds(5), period: .seconds(5)) { count in
            log.append("tick \(count)")
            return count + 1
        }
        scheduler.advanceTo(10)
        periodic.dispose()
        scheduler.start()
        XCTAssertEqual(log, ["now", "later", "tick 0", "tick 1"])
    }
}

// MARK: - RxSwift-style tests as users write them
//
// Each test below is written the way an RxSwift 6 / RxTest test suite writes
// it; only the two imports at the top of this file differ.

final class RxSwiftStyleTestSuiteSnippetTests: XCTestCase {
    func testCompositeDisposableOfFiveDisposables() {
        var disposed: [Int] = []
        let d1 = Disposables.create { disposed.append(1) }
        let d2 = Disposables.create { disposed.append(2) }
        let d3 = Disposables.create { disposed.append(3) }
        let d4 = Disposables.create { disposed.append(4) }
        let d5 = Disposables.create { disposed.append(5) }

        let composite = CompositeDisposable(d1, d2, d3, d4, d5)

        XCTAssertEqual(composite.count, 5)
        composite.dispose()
        XCTAssertEqual(disposed, [1, 2, 3, 4, 5])
        XCTAssertTrue(composite.isDisposed)
    }

    func testRecordedEventsHelpers() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([
            .next(150, 1),
            .next(210, 0),
            .completed(300),
        ])

        let res = scheduler.start { xs.asObservable() }

        XCTAssertEqual(res.events, Recorded.events(.next(210, 0), .completed(300)))
        XCTAssertEqual(res.events, Recorded.events([.next(210, 0), .completed(300)]))
        XCTAssertNotEqual(res.events, Recorded.events(.next(210, 1), .completed(300)))
    }

    func testRefCountDisposable() {
        var isUnderlyingDisposed = false
        let refCount = RefCountDisposable(disposable: Disposables.create { isUnderlyingDisposed = true })

        let d1 = refCount.retain()
        let d2 = refCount.retain()

        refCount.dispose()
        XCTAssertFalse(isUnderlyingDisposed)
        XCTAssertFalse(refCount.isDisposed)

        d1.dispose()
        XCTAssertFalse(isUnderlyingDisposed)

        d2.dispose()
        XCTAssertTrue(isUnderlyingDisposed)
        XCTAssertTrue(refCount.isDisposed)
    }

    func testInterval_TimeSpan_Zero() {
        let scheduler = TestScheduler(initialClock: 0)

        let res = scheduler.start(disposed: 210) {
            Observable<Int64>.interval(.seconds(0), scheduler: scheduler)
        }

        let correct = Recorded.events(
            .next(201, 0 as Int64),
            .next(202, 1),
            .next(203, 2),
            .next(204, 3),
            .next(205, 4),
            .next(206, 5),
            .next(207, 6),
            .next(208, 7),
            .next(209, 8)
        )

        XCTAssertEqual(res.events, correct)
    }

    func testIntervalOfZeroOnTestSchedulerWithIntAsInTheIssue() {
        let testScheduler = TestScheduler(initialClock: 0)
        var values: [Int] = []

        let subscription = Observable<Int>.interval(.seconds(0), scheduler: testScheduler)
            .subscribe(onNext: { values.append($0) })
        testScheduler.advanceTo(5)
        subscription.dispose()
        testScheduler.start()

        XCTAssertEqual(values, [0, 1, 2, 3, 4])
    }
}
