import Dispatch
import Foundation
@testable import Schedulers
import SchedulersTesting
import XCTest

/// `observe(on:)`: path selection, batching, order, disposal, and the
/// example of RxSwift's Schedulers guide.
final class ObserveOnTests: XCTestCase {
    // MARK: The example of RxSwift's Schedulers guide, as written

    func testReferenceExampleRunsWithObserveOn() {
        let sequence1 = Observable.of(1, 2, 3)
        let backgroundScheduler = ConcurrentDispatchQueueScheduler(qos: .default)
        let finished = expectation(description: "completed on the main thread")
        var mainThreadFlags: [Bool] = []
        let subscription = sequence1
          .observeOn(backgroundScheduler)
          .map { n in
              print("This is performed on the background scheduler")
          }
          .observeOn(MainScheduler.instance)
          .map { n in
              print("This is performed on the main scheduler")
          }
          .subscribe(onNext: { mainThreadFlags.append(Thread.isMainThread) }, onCompleted: { finished.fulfill() })
        wait(for: [finished], timeout: 10)
        XCTAssertEqual(mainThreadFlags, [true, true, true])
        subscription.dispose()
    }

    func testReferenceExampleRunsWithObserveOnSpelledTheRxSwift6Way() {
        let sequence1 = Observable.of(1, 2, 3)
        let backgroundScheduler = SerialDispatchQueueScheduler(qos: .default)
        let finished = expectation(description: "completed on the main thread")
        var backgroundFlags: [Bool] = []
        var mainThreadFlags: [Bool] = []
        let subscription = sequence1
          .observe(on: backgroundScheduler)
          .map { n in
              backgroundFlags.append(Thread.isMainThread)
              print("This is performed on the background scheduler")
          }
          .observe(on: MainScheduler.instance)
          .map { n in
              mainThreadFlags.append(Thread.isMainThread)
              print("This is performed on the main scheduler")
          }
          .subscribe(onCompleted: { finished.fulfill() })
        wait(for: [finished], timeout: 10)
        XCTAssertEqual(backgroundFlags, [false, false, false])
        XCTAssertEqual(mainThreadFlags, [true, true, true])
        subscription.dispose()
    }

    // MARK: The usage example of the catalog's ObserveOnPaths article

    func testUsageExampleObserveOnAndSubscribeOn() {
        let lines = SequencesEventBox<String>()
        func print(_ line: String) {
            Swift.print(line)
            lines.append(.next(line))
        }

        // --- doc: Sources/Schedulers/Schedulers.docc/ObserveOnPaths.md ---
        func whereAmI() -> String {
            Thread.isMainThread ? "main thread" : "background thread"
        }
        let background = ConcurrentDispatchQueueScheduler(qos: .userInitiated)
        var finished = false

        let numbers = Observable<Int>.create { observer in
            print("subscribe closure runs on the \(whereAmI())")
            for n in 1...3 {
                observer.onNext(n)
            }
            observer.onCompleted()
            return Disposables.create()
        }

        let subscription = numbers
            .subscribeOn(background)                  // subscription work off the main thread
            .map { n in n * 10 }                      // still on the background thread
            .observeOn(MainScheduler.instance)        // hop to the main thread (serial fast path)
            .subscribe(
                onNext: { value in print("got \(value) on the \(whereAmI())") },
                onCompleted: {
                    print("completed on the \(whereAmI())")
                    finished = true
                }
            )

        // A command-line program drives the main queue itself (see MainScheduler's documentation).
        MainScheduler.runMainQueue(until: Date().addingTimeInterval(10), while: { !finished })
        subscription.dispose()
        // --- end ---

        XCTAssertEqual(lines.events, [
            .next("subscribe closure runs on the background thread"),
            .next("got 10 on the main thread"),
            .next("got 20 on the main thread"),
            .next("got 30 on the main thread"),
            .next("completed on the main thread"),
        ])
    }

    // MARK: Path selection

    func testAnySerialSchedulerGetsTheFastPath() {
        let source = Observable.just(1)
        XCTAssertTrue(source.observe(on: ManualSerialScheduler()) is ObserveOnFastPath<Int>)
        XCTAssertTrue(source.observe(on: SerialDispatchQueueScheduler(qos: .default)) is ObserveOnFastPath<Int>)
        XCTAssertTrue(source.observe(on: MainScheduler.instance) is ObserveOnFastPath<Int>)
        XCTAssertTrue(source.observe(on: TestScheduler(initialClock: 0)) is ObserveOnFastPath<Int>)
        XCTAssertTrue(source.observeOn(ManualSerialScheduler()) is ObserveOnFastPath<Int>)
        // Serial by a conformance declared apart from the scheduler's own.
        XCTAssertTrue(source.observe(on: LaterSerialScheduler()) is ObserveOnFastPath<Int>)
        XCTAssertTrue(source.observe(on: LaterSerialScheduler() as ImmediateSchedulerType) is ObserveOnFastPath<Int>)
    }

    func testOtherSchedulersAndTheForcedPathGetTheGenericPath() {
        let source = Observable.just(1)
        XCTAssertTrue(source.observe(on: ConcurrentDispatchQueueScheduler(qos: .default)) is ObserveOnGeneric<Int>)
        XCTAssertTrue(source.observe(on: CurrentThreadScheduler.instance) is ObserveOnGeneric<Int>)
        XCTAssertTrue(source.observe(on: InlineScheduler()) is ObserveOnGeneric<Int>)
        XCTAssertTrue(source.observe(on: ManualSerialScheduler(), path: .generic) is ObserveOnGeneric<Int>)
    }

    // MARK: Batching

    func testOneDrainIsScheduledPerBatchOnBothPaths() {
        for path in [ObserveOnPath.automatic, .generic] {
            let scheduler = ManualSerialScheduler()
            let subject = SequencesTestSubject<Int>()
            let (events, subscription) = sequencesRecord(subject.observable.observe(on: scheduler, path: path))
            for value in 0..<100 {
                subject.send(value)
            }
            XCTAssertEqual(scheduler.scheduledCount, 1, "\(path)")
            XCTAssertEqual(events(), [], "nothing is delivered before the scheduler runs")
            scheduler.runQueued()
            XCTAssertEqual(events(), (0..<100).map { .next($0) }, "\(path)")
            subject.send(100)
            subject.send(.completed)
            XCTAssertEqual(scheduler.scheduledCount, 2, "\(path)")
            scheduler.runQueued()
            XCTAssertEqual(events().suffix(2), [.next(100), .completed], "\(path)")
            subscription.dispose()
        }
    }

    func testEventsQueuedDuringADrainAreDeliveredByTheSameDrain() {
        for path in [ObserveOnPath.automatic, .generic] {
            let scheduler = ManualSerialScheduler()
            let subject = SequencesTestSubject<Int>()
            var received: [Int] = []
            let subscription = subject.observable.observe(on: scheduler, path: path).subscribe(onNext: { value in
                received.append(value)
                if value < 5 {
                    subject.send(value + 10)
                }
            })
            subject.send(0)
            subject.send(1)
            scheduler.runQueued()
            XCTAssertEqual(received, [0, 1, 10, 11], "\(path)")
            XCTAssertEqual(scheduler.scheduledCount, 1, "\(path)")
            subscription.dispose()
        }
    }

    func testGenericPathOnAnInlineSchedulerHandlesReentrantEventsInOrder() {
        let scheduler = InlineScheduler()
        let subject = SequencesTestSubject<Int>()
        var received: [Int] = []
        var depth = 0
        var maximumDepth = 0
        let subscription = subject.observable.observe(on: scheduler).subscribe(onNext: { value in
            depth += 1
            maximumDepth = max(maximumDepth, depth)
            received.append(value)
            if value < 50 {
                subject.send(value + 1)
            }
            depth -= 1
        })
        subject.send(0)
        XCTAssertEqual(received, Array(0...50))
        XCTAssertEqual(maximumDepth, 1, "re-entrant events are queued, not delivered recursively")
        XCTAssertEqual(scheduler.scheduledCount, 1)
        subscription.dispose()
    }

    /// Bursts separated by pauses of varying length make the drain sometimes
    /// find more queued, sometimes go idle just before or after an element
    /// arrives, and make upstream and the drain contend for the queue's lock:
    /// on every path, nothing is lost, duplicated or reordered.
    func testBurstsFromAnotherThreadArriveInOrderOnEveryPath() {
        let cases: [(String, ImmediateSchedulerType, ObserveOnPath)] = [
            ("fast path", SerialDispatchQueueScheduler(internalSerialQueueName: "observe-on-bursts"), .automatic),
            ("generic", SerialDispatchQueueScheduler(internalSerialQueueName: "observe-on-bursts-generic"), .generic),
            ("concurrent", ConcurrentDispatchQueueScheduler(qos: .default), .automatic),
        ]
        for (name, scheduler, path) in cases {
            let finished = expectation(description: "completed (\(name))")
            let box = SequencesEventBox<Int>()
            let bursts = 300
            let burstLength = 20
            let source = Observable<Int>.create { observer in
                let transfer = UnsafeTransfer(observer)
                DispatchQueue.global().async {
                    var value = 0
                    for burst in 0..<bursts {
                        for _ in 0..<burstLength {
                            transfer.value.onNext(value)
                            value += 1
                        }
                        // A busy pause of 0 to 7 µs, about a drain's length
                        // (a sleep would last far longer).
                        let pauseEnd = DispatchTime.now().uptimeNanoseconds + UInt64(burst % 8) * 1_000
                        while DispatchTime.now().uptimeNanoseconds < pauseEnd {}
                    }
                    transfer.value.onCompleted()
                }
                return Disposables.create()
            }
            let subscription = source.observe(on: scheduler, path: path).subscribe { event in
                box.append(SequencesRecordedEvent(event))
                if event.isStopEvent { finished.fulfill() }
            }
            wait(for: [finished], timeout: 20)
            XCTAssertTrue(
                box.events == (0..<bursts * burstLength).map { .next($0) } + [.completed],
                "\(name): out of order, duplicated or incomplete")
            subscription.dispose()
        }
    }

    // MARK: Terminal events and disposal

    func testTerminalEventIsDeliveredAfterQueuedElementsAndReleasesTheSource() {
        for path in [ObserveOnPath.automatic, .generic] {
            let scheduler = ManualSerialScheduler()
            let subject = SequencesTestSubject<Int>()
            let (events, _) = sequencesRecord(subject.observable.observe(on: scheduler, path: path))
            subject.send(1)
            subject.send(.error(SequencesTestError()))
            subject.send(2)
            scheduler.runQueued()
            XCTAssertEqual(events(), [.next(1), .error("test error")], "\(path)")
            XCTAssertEqual(subject.disposalCount, 1, "\(path)")
        }
    }

    func testDisposingFromTheObserverStopsDeliveryAtOnce() {
        for path in [ObserveOnPath.automatic, .generic] {
            let scheduler = ManualSerialScheduler()
            let subject = SequencesTestSubject<Int>()
            var received: [Int] = []
            var subscription: Disposable?
            subscription = subject.observable.observe(on: scheduler, path: path).subscribe(onNext: { value in
                received.append(value)
                if value == 2 {
                    subscription?.dispose()
                }
            })
            for value in 0..<10 {
                subject.send(value)
            }
            scheduler.runQueued()
            XCTAssertEqual(received, [0, 1, 2], "\(path)")
            XCTAssertEqual(subject.disposalCount, 1, "\(path)")
        }
    }

    func testDisposingBeforeTheDrainRunsDeliversNothing() {
        for path in [ObserveOnPath.automatic, .generic] {
            let scheduler = ManualSerialScheduler()
            let subject = SequencesTestSubject<Int>()
            let (events, subscription) = sequencesRecord(subject.observable.observe(on: scheduler, path: path))
            subject.send(1)
            subscription.dispose()
            subject.send(2)
            scheduler.runQueued()
            XCTAssertEqual(events(), [], "\(path)")
            XCTAssertEqual(scheduler.scheduledCount, 1, "\(path)")
        }
    }

    func testFastPathOnASerialDispatchQueueDeliversEverythingInOrder() {
        let scheduler = SerialDispatchQueueScheduler(internalSerialQueueName: "observe-on-order")
        let finished = expectation(description: "completed")
        let box = SequencesEventBox<Int>()
        let subscription = Observable<Int>.range(start: 0, count: 20_000)
            .observe(on: scheduler)
            .subscribe { event in
                box.append(SequencesRecordedEvent(event))
                if event.isStopEvent { finished.fulfill() }
            }
        wait(for: [finished], timeout: 10)
        let events = box.events
        XCTAssertEqual(events.count, 20_001)
        XCTAssertTrue(events == (0..<20_000).map { .next($0) } + [.completed], "out of order")
        subscription.dispose()
    }

    func testObserveOnTestSchedulerDeliversAtTheNextTick() {
        let scheduler = TestScheduler(initialClock: 0)
        var times: [Int] = []
        let subscription = Observable.of(1, 2, 3)
            .observe(on: scheduler)
            .subscribe(onNext: { _ in times.append(scheduler.clock) })
        scheduler.start()
        XCTAssertEqual(times, [1, 1, 1], "one batch, one hop")
        subscription.dispose()
    }
}

/// The serial fast path on a dispatch queue enqueues one reusable block per
/// drain; each queued drain keeps the sink alive, and nothing else does.
final class ObserveOnReusableDrainTests: XCTestCase {
    func testDispatchSerialSchedulersTakeReusableBlocksButTheMainSchedulerDoesNot() {
        XCTAssertTrue(SerialDispatchQueueScheduler(internalSerialQueueName: "reusable").takesReusableBlocks)
        XCTAssertTrue(MainScheduler.asyncInstance.takesReusableBlocks)
        XCTAssertFalse(MainScheduler.instance.takesReusableBlocks)
    }

    func testDisposingWhileADrainIsQueuedDeliversNothingAndFreesTheSink() {
        let target = DispatchQueue(label: "observe-on-suspended-target")
        target.suspend()
        let scheduler = SerialDispatchQueueScheduler(queue: target, internalSerialQueueName: "observe-on-reusable")
        var captured: AnyObserver<Int>?
        let box = SequencesEventBox<Int>()
        let baseline = LiveInstances.sinks.load(ordering: .relaxed)
        var subscription: Disposable? = Observable<Int>.create { observer in
            captured = observer
            return Disposables.create()
        }
        .observe(on: scheduler)
        .subscribe { box.append(SequencesRecordedEvent($0)) }
        captured?.onNext(1)
        captured?.onNext(2)
        subscription?.dispose()
        subscription = nil
        captured = nil
        target.resume()
        scheduler.configuration.queue.sync {}
        XCTAssertEqual(box.events, [])
        let deadline = Date().addingTimeInterval(5)
        while LiveInstances.sinks.load(ordering: .relaxed) > baseline, Date() < deadline {
            Thread.sleep(forTimeInterval: 0.005)
        }
        XCTAssertLessThanOrEqual(LiveInstances.sinks.load(ordering: .relaxed), baseline, "sinks leaked")
    }

    func testManyBatchesOnTheReusableBlockArriveInOrderFromAnotherThread() {
        let scheduler = SerialDispatchQueueScheduler(internalSerialQueueName: "observe-on-reusable-order")
        let finished = expectation(description: "completed")
        let box = SequencesEventBox<Int>()
        let count = 50_000
        let source = Observable<Int>.create { observer in
            let transfer = UnsafeTransfer(observer)
            DispatchQueue.global().async {
                for value in 0..<count {
                    transfer.value.onNext(value)
                }
                transfer.value.onCompleted()
            }
            return Disposables.create()
        }
        let subscription = source.observe(on: scheduler).subscribe { event in
            box.append(SequencesRecordedEvent(event))
            if event.isStopEvent { finished.fulfill() }
        }
        wait(for: [finished], timeout: 20)
        XCTAssertTrue(box.events == (0..<count).map { .next($0) } + [.completed], "out of order or incomplete")
        subscription.dispose()
    }
}

/// A user's scheduler that states its serial promise in an extension of its
/// own, after conforming to `ImmediateScheduler`.
private final class LaterSerialScheduler: ImmediateScheduler {
    private let serial = ManualSerialScheduler()

    func schedule<StateType>(_ state: StateType, action: @escaping (StateType) -> Disposable) -> Disposable {
        serial.schedule(state, action: action)
    }
}

extension LaterSerialScheduler: SerialScheduler {
    func scheduleInOrder<StateType>(_ state: StateType, action: @escaping (StateType) -> Disposable) -> Disposable {
        serial.scheduleInOrder(state, action: action)
    }
}
