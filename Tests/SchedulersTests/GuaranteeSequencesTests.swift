import Dispatch
import Foundation
import Schedulers
import SchedulersTesting
import Synchronization
import Testing

/// Guarantees 1 to 6 in Guarantees.md, as the sequences keep them; time-based ones on virtual time.
@Suite struct GuaranteeSequencesTests {
    /// A source that breaks the grammar: events after its terminal event.
    private func unruly() -> Observable<Int> {
        Observable<Int>.create { observer in
            observer.onNext(1)
            observer.onCompleted()
            observer.onNext(2)
            observer.onError(SequencesTestError())
            observer.onCompleted()
            return Disposables.create()
        }
    }

    @Test(.tags(.guarantee1))
    func grammarNothingAfterTerminal() {
        #expect(sequencesRecord(unruly()).events() == [.next(1), .completed])
        #expect(sequencesRecord(unruly().map { $0 }.filter { _ in true }).events() == [.next(1), .completed])
        #expect(sequencesRecord(unruly().take(5)).events() == [.next(1), .completed])
        for path in [ObserveOnPath.automatic, .generic] {
            let scheduler = ManualSerialScheduler()
            let (events, _) = sequencesRecord(unruly().observe(on: scheduler, path: path))
            scheduler.runQueued()
            #expect(events() == [.next(1), .completed], "\(path)")
        }
        let testScheduler = TestScheduler(initialClock: 0)
        let observer = testScheduler.createObserver(Int.self)
        _ = unruly().subscribe(on: testScheduler).subscribe(observer)
        testScheduler.start()
        #expect(observer.events == [.next(1, 1), .completed(1)])

        // A hand-written observable that breaks the grammar, seen through subscribe(onNext:...).
        var calls: [String] = []
        let raw = SequencesTestSubject<Int>()
        _ = raw.observable.observe(on: CurrentThreadScheduler.instance).subscribe(
            onNext: { calls.append("next \($0)") },
            onError: { _ in calls.append("error") },
            onCompleted: { calls.append("completed") }
        )
        raw.send(1)
        raw.send(.error(SequencesTestError()))
        raw.send(.completed)
        raw.send(2)
        #expect(calls == ["next 1", "error"])
    }

    @Test(.tags(.guarantee2))
    func observerNeverCalledConcurrentlyWithItself() {
        let concurrent = ConcurrentDispatchQueueScheduler(qos: .default)
        let serial = SerialDispatchQueueScheduler(internalSerialQueueName: "guarantee-2")
        let cases: [(String, ImmediateSchedulerType, ObserveOnPath)] = [
            ("generic on concurrent", concurrent, .automatic),
            ("fast path on serial", serial, .automatic),
            ("generic forced on serial", serial, .generic),
        ]
        for (name, scheduler, path) in cases {
            let inside = Atomic<Int>(0)
            let overlaps = Atomic<Int>(0)
            let outOfOrder = Atomic<Int>(0)
            let last = Atomic<Int>(-1)
            let finished = TestFulfilment()
            let subject = SequencesTestSubject<Int>()
            let subscription = subject.observable.observe(on: scheduler, path: path).subscribe(
                onNext: { value in
                    if inside.add(1, ordering: .acquiringAndReleasing).newValue != 1 {
                        overlaps.add(1, ordering: .relaxed)
                    }
                    if last.exchange(value, ordering: .relaxed) != value - 1 {
                        outOfOrder.add(1, ordering: .relaxed)
                    }
                    inside.subtract(1, ordering: .acquiringAndReleasing)
                },
                onCompleted: { finished.fulfill() }
            )
            let producer = Thread {
                for value in 0..<20_000 {
                    subject.send(value)
                }
                subject.send(.completed)
            }
            producer.start()
            #expect(finished.wait(timeout: 20), "timed out waiting")
            #expect(overlaps.load(ordering: .relaxed) == 0, "\(name)")
            #expect(outOfOrder.load(ordering: .relaxed) == 0, "\(name)")
            #expect(last.load(ordering: .relaxed) == 19_999, "\(name)")
            subscription.dispose()
        }
    }

    @Test(.tags(.guarantee3))
    func observeOnKeepsOrderAndNothingArrivesAfterDisposeOnTheScheduler() {
        // Deterministic: a dispose run on the scheduler between two batches.
        for path in [ObserveOnPath.automatic, .generic] {
            let scheduler = ManualSerialScheduler()
            let subject = SequencesTestSubject<Int>()
            let (events, subscription) = sequencesRecord(subject.observable.observe(on: scheduler, path: path))
            subject.send(1)
            subject.send(2)
            scheduler.runQueued()
            _ = scheduler.scheduleInOrder(subscription) { subscription in
                subscription.dispose()
                return Disposables.create()
            }
            subject.send(3)
            subject.send(4)
            scheduler.runQueued()
            #expect(events() == [.next(1), .next(2)], "\(path)")
        }

        // Racing: a producer thread keeps sending while an action on the
        // serial queue disposes; no event may reach the observer after it.
        for path in [ObserveOnPath.automatic, .generic] {
            for round in 0..<20 {
                let scheduler = SerialDispatchQueueScheduler(internalSerialQueueName: "guarantee-3-\(round)")
                let disposedOnScheduler = Atomic<Bool>(false)
                let lateEvents = Atomic<Int>(0)
                let outOfOrder = Atomic<Int>(0)
                let last = Atomic<Int>(-1)
                let subject = SequencesTestSubject<Int>()
                let subscription = subject.observable.observe(on: scheduler, path: path).subscribe(onNext: { value in
                    if disposedOnScheduler.load(ordering: .acquiring) {
                        lateEvents.add(1, ordering: .relaxed)
                    }
                    if last.exchange(value, ordering: .relaxed) >= value {
                        outOfOrder.add(1, ordering: .relaxed)
                    }
                })
                let producerDone = DispatchSemaphore(value: 0)
                let producer = Thread {
                    for value in 0..<5_000 {
                        subject.send(value)
                    }
                    producerDone.signal()
                }
                producer.start()
                let disposed = TestFulfilment()
                _ = scheduler.scheduleInOrder(subscription) { subscription in
                    subscription.dispose()
                    disposedOnScheduler.store(true, ordering: .releasing)
                    disposed.fulfill()
                    return Disposables.create()
                }
                #expect(disposed.wait(timeout: 10), "timed out waiting")
                producerDone.wait()
                let drained = TestFulfilment()
                _ = scheduler.scheduleInOrder(()) { _ in
                    drained.fulfill()
                    return Disposables.create()
                }
                #expect(drained.wait(timeout: 10), "timed out waiting")
                #expect(lateEvents.load(ordering: .relaxed) == 0, "\(path) round \(round)")
                #expect(outOfOrder.load(ordering: .relaxed) == 0, "\(path) round \(round)")
            }
        }
    }

    @Test(.tags(.guarantee4))
    func subscribeOnRunsOnTheSchedulerAndALosingSubscribeNeverRuns() {
        // Subscription and disposal happen on the scheduler (virtual time tells).
        let testScheduler = TestScheduler(initialClock: 0)
        var log: [String] = []
        let observable = Observable<Int>.create { _ in
            log.append("subscribed at \(testScheduler.clock)")
            return Disposables.create { log.append("disposed at \(testScheduler.clock)") }
        }
        testScheduler.scheduleAt(10) {
            let subscription = observable.subscribe(on: testScheduler).subscribe()
            testScheduler.scheduleAt(20) { subscription.dispose() }
        }
        testScheduler.start()
        #expect(log == ["subscribed at 11", "disposed at 21"])

        // A dispose that wins against the pending subscribe: it never runs.
        let pendingScheduler = TestScheduler(initialClock: 0)
        var subscriptions = 0
        let counting = Observable<Int>.create { _ in
            subscriptions += 1
            return Disposables.create()
        }
        counting.subscribe(on: pendingScheduler).subscribe().dispose()
        pendingScheduler.start()
        #expect(subscriptions == 0)

        // Racing on a real queue: every subscribe that ran is disposed exactly once.
        let serial = SerialDispatchQueueScheduler(internalSerialQueueName: "guarantee-4")
        let subscribed = Atomic<Int>(0)
        let disposedCount = Atomic<Int>(0)
        let racing = Observable<Int>.create { _ in
            subscribed.add(1, ordering: .relaxed)
            return Disposables.create { disposedCount.add(1, ordering: .relaxed) }
        }
        for _ in 0..<2_000 {
            racing.subscribe(on: serial).subscribe().dispose()
        }
        let drained = TestFulfilment()
        _ = serial.scheduleInOrder(()) { _ in
            drained.fulfill()
            return Disposables.create()
        }
        #expect(drained.wait(timeout: 10), "timed out waiting")
        #expect(subscribed.load(ordering: .relaxed) == disposedCount.load(ordering: .relaxed))
        #expect(subscribed.load(ordering: .relaxed) < 2_000, "some disposes won the race")
    }

    @Test(.tags(.guarantee5))
    func disposedBeforeStartNeverRunsDisposedWhileRunningFinishes() {
        // Before start: a timer, a pending observe(on:) drain, a pending subscribe(on:).
        let scheduler = TestScheduler(initialClock: 0)
        var fired = 0
        Observable<Int>.timer(.seconds(5), scheduler: scheduler).subscribe(onNext: { _ in fired += 1 }).dispose()
        let subject = SequencesTestSubject<Int>()
        let observed = subject.observable.observe(on: scheduler).subscribe(onNext: { _ in fired += 1 })
        subject.send(1)
        observed.dispose()
        Observable.just(1).subscribe(on: scheduler).subscribe(onNext: { _ in fired += 1 }).dispose()
        scheduler.start()
        #expect(fired == 0)

        // While running: a tick that disposes its own subscription finishes and never runs again.
        let periodicScheduler = TestScheduler(initialClock: 0)
        var subscription: Disposable?
        var ticks: [String] = []
        subscription = Observable<Int>.interval(.seconds(1), scheduler: periodicScheduler).subscribe(onNext: { value in
            ticks.append("start \(value)")
            if value == 2 {
                subscription?.dispose()
            }
            ticks.append("end \(value)")
        })
        periodicScheduler.advanceTo(100)
        #expect(ticks == ["start 0", "end 0", "start 1", "end 1", "start 2", "end 2"])
    }

    @Test(.tags(.guarantee6))
    func periodicTicksDoNotDriftOverlapOrOutliveDispose() {
        // Each tick runs late (takes 3 of its 10-tick period): after 10,000 ticks, no drift.
        let scheduler = TestScheduler(initialClock: 0)
        let tickCount = 10_000
        var lastTick = -1
        var lastTime = 0
        var driftedTicks = 0
        var running = false
        var overlaps = 0
        var subscription: Disposable?
        subscription = Observable<Int>.interval(.seconds(10), scheduler: scheduler).subscribe(onNext: { value in
            if running { overlaps += 1 }
            running = true
            if scheduler.clock != 10 * (value + 1) {
                driftedTicks += 1
            }
            lastTick = value
            lastTime = scheduler.clock
            scheduler.sleep(3)
            if value == tickCount - 1 {
                subscription?.dispose()
            }
            running = false
        })
        scheduler.start()
        #expect(lastTick == tickCount - 1)
        #expect(lastTime == 10 * tickCount, "cumulative drift after \(tickCount) ticks")
        #expect(driftedTicks == 0)
        #expect(overlaps == 0)

        // On a real concurrent scheduler: no tick overlaps, none starts after dispose returns.
        let concurrent = ConcurrentDispatchQueueScheduler(qos: .default)
        let inside = Atomic<Int>(0)
        let realOverlaps = Atomic<Int>(0)
        let afterDispose = Atomic<Int>(0)
        let disposeReturned = Atomic<Bool>(false)
        let someTicks = TestFulfilment()
        let real = Observable<Int>.interval(.milliseconds(1), scheduler: concurrent).subscribe(onNext: { value in
            if disposeReturned.load(ordering: .acquiring) {
                afterDispose.add(1, ordering: .relaxed)
            }
            if inside.add(1, ordering: .acquiringAndReleasing).newValue != 1 {
                realOverlaps.add(1, ordering: .relaxed)
            }
            if value >= 20 {
                someTicks.fulfill()
            }
            inside.subtract(1, ordering: .acquiringAndReleasing)
        })
        #expect(someTicks.wait(timeout: 10), "timed out waiting")
        real.dispose()
        disposeReturned.store(true, ordering: .releasing)
        Thread.sleep(forTimeInterval: 0.02)
        #expect(realOverlaps.load(ordering: .relaxed) == 0)
        #expect(afterDispose.load(ordering: .relaxed) == 0)
    }
}
