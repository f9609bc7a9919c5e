import Foundation
import SchedulersTesting
import XCTest

@testable import Schedulers

/// Guarantees 7 and 8 in Guarantees.md, each across every kind it covers:
/// every disposable releases what it holds exactly once from any thread, and
/// nothing a subscription or a scheduled action used outlives its disposal or
/// completion. `DisposablesTests`, `LeakSequencesTests` and the scheduler
/// tests check each kind in more detail.
final class GuaranteeDisposalTests: XCTestCase {
    /// Fresh objects per kind; each round races `racingCalls` disposes.
    private let rounds = 100
    /// Threads disposing one object at once (more than cores, on purpose).
    private let racingCalls = 16

    /// One kind of disposable, made fresh for each round.
    private struct Kind {
        let name: String
        /// The disposable and the resources it holds; each must end disposed once.
        let make: () -> (disposable: Disposable, resources: [DisposalCounter])
        /// Hands `late` to the already disposed disposable, for the kinds that
        /// take new members; such a member must be disposed at once.
        var handLate: ((Disposable, DisposalCounter) -> Void)?
        /// Waits for disposal work the kind defers to a scheduler.
        var settle: () -> Void = {}
    }

    func testGuarantee7_EveryDisposableReleasesItsResourceExactlyOnceFromManyThreads() {
        let queueScheduler = QueueTestScheduler(label: "guarantee-7")
        let kinds: [Kind] = [
            Kind(name: "Disposables.create(with:)") {
                let resource = DisposalCounter()
                return (Disposables.create(with: { resource.dispose() }), [resource])
            },
            Kind(name: "Disposables.create of two") {
                let resources = [DisposalCounter(), DisposalCounter()]
                return (Disposables.create(resources[0], resources[1]), resources)
            },
            Kind(name: "Disposables.create of three") {
                let resources = (0..<3).map { _ in DisposalCounter() }
                return (Disposables.create(resources[0], resources[1], resources[2]), resources)
            },
            Kind(name: "Disposables.create of an array") {
                let resources = (0..<5).map { _ in DisposalCounter() }
                return (Disposables.create(resources), resources)
            },
            Kind(
                name: "SingleAssignmentDisposable",
                make: {
                    let resource = DisposalCounter()
                    let single = SingleAssignmentDisposable()
                    single.setDisposable(resource)
                    return (single, [resource])
                }
            ),
            Kind(
                name: "SingleAssignmentDisposable assigned after dispose",
                make: { (SingleAssignmentDisposable(), []) },
                handLate: { disposable, late in (disposable as! SingleAssignmentDisposable).setDisposable(late) }
            ),
            Kind(
                name: "SerialDisposable",
                make: {
                    let replaced = DisposalCounter()
                    let current = DisposalCounter()
                    let serial = SerialDisposable()
                    serial.disposable = replaced
                    serial.disposable = current
                    return (serial, [replaced, current])
                },
                handLate: { disposable, late in (disposable as! SerialDisposable).disposable = late }
            ),
            Kind(
                name: "CompositeDisposable",
                make: {
                    let resources = (0..<4).map { _ in DisposalCounter() }
                    let composite = CompositeDisposable(disposables: Array(resources[0..<2]))
                    composite.insert(resources[2])
                    if let key = composite.insert(resources[3]) {
                        composite.remove(for: key)
                    }
                    return (composite, resources)
                },
                handLate: { disposable, late in _ = (disposable as! CompositeDisposable).insert(late) }
            ),
            Kind(
                name: "ScheduledDisposable",
                make: {
                    let resource = DisposalCounter()
                    return (ScheduledDisposable(scheduler: queueScheduler, disposable: resource), [resource])
                },
                settle: { queueScheduler.waitUntilIdle() }
            ),
            Kind(name: "a scheduled action's disposable, after the action ran") {
                let result = DisposalCounter()
                let scheduler = TestScheduler(initialClock: 0)
                let scheduled = scheduler.scheduleRelative((), dueTime: .seconds(1)) { _ in result }
                scheduler.start()
                return (scheduled, [result])
            },
            Kind(name: "a subscription") {
                let resource = DisposalCounter()
                let subscription = Observable<Int>.create { _ in resource }
                    .map { $0 + 1 }
                    .filter { _ in true }
                    .subscribe(onNext: { _ in })
                return (subscription, [resource])
            },
        ]

        for kind in kinds {
            for _ in 0..<rounds {
                let (disposable, resources) = kind.make()
                XCTAssertTrue(
                    resources.isEmpty || resources.contains { $0.disposeCount == 0 }, "\(kind.name): nothing left to release")
                runConcurrently(iterations: racingCalls) { _ in
                    disposable.dispose()
                }
                kind.settle()
                XCTAssertEqual(
                    resources.map(\.disposeCount), Array(repeating: 1, count: resources.count),
                    "\(kind.name): every resource released exactly once")
                if let handLate = kind.handLate {
                    let late = DisposalCounter()
                    handLate(disposable, late)
                    XCTAssertEqual(late.disposeCount, 1, "\(kind.name): a member handed over after disposal is disposed at once")
                }
                disposable.dispose()
                kind.settle()
                XCTAssertEqual(
                    resources.map(\.disposeCount), Array(repeating: 1, count: resources.count),
                    "\(kind.name): disposing again releases nothing twice")
            }
        }

        // DisposeBag has no dispose(): members inserted from many threads at
        // once are each disposed exactly once when the bag goes away.
        for _ in 0..<rounds {
            let members = (0..<racingCalls).map { _ in DisposalCounter() }
            do {
                let bag = DisposeBag()
                runConcurrently(iterations: racingCalls) { index in
                    bag.insert(members[index])
                }
                XCTAssertEqual(members.map(\.disposeCount).reduce(0, +), 0)
            }
            XCTAssertEqual(members.map(\.disposeCount), Array(repeating: 1, count: racingCalls), "DisposeBag")
        }
    }

    // MARK: - Guarantee 8

    private var liveCounts: (sinks: Int, disposers: Int) {
        (LiveInstances.sinks.load(ordering: .relaxed), LiveInstances.disposers.load(ordering: .relaxed))
    }

    /// The live counts once sinks other tests released on dispatch threads
    /// have settled (the counters are process-wide).
    private func settledLiveCounts() -> (sinks: Int, disposers: Int) {
        var previous = liveCounts
        for _ in 0..<100 {
            Thread.sleep(forTimeInterval: 0.005)
            let current = liveCounts
            if current == previous {
                return current
            }
            previous = current
        }
        return previous
    }

    private func assertNoSinkOrDisposerLeft(
        since baseline: (sinks: Int, disposers: Int), _ message: String, file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertLessThanOrEqual(liveCounts.sinks, baseline.sinks, "sinks leaked: \(message)", file: file, line: line)
        XCTAssertLessThanOrEqual(liveCounts.disposers, baseline.disposers, "disposers leaked: \(message)", file: file, line: line)
    }

    func testGuarantee8_NothingLeaksAfterDisposalOrCompletion() {
        let baseline = settledLiveCounts()

        // Completion: an interval through every operator, both thread hops and
        // take(3). Once it completes, its sinks, disposers, periodic job and
        // the closures' captures are freed, though the caller still holds the
        // subscription.
        let scheduler = TestScheduler(initialClock: 0)
        weak var weakCompleting: LifetimeToken?
        var completed = false
        var subscription: Disposable
        do {
            let token = LifetimeToken()
            weakCompleting = token
            subscription = Observable<Int>.interval(.seconds(1), scheduler: scheduler)
                .map { value in (value, token) }
                .filter { _ in true }
                .take(3)
                .observe(on: scheduler)
                .subscribe(on: scheduler)
                .subscribe(onNext: { _ in _ = token }, onCompleted: { completed = true })
        }
        XCTAssertNotNil(weakCompleting)
        XCTAssertGreaterThan(liveCounts.sinks, baseline.sinks, "the counter sees the live subscription")
        XCTAssertGreaterThan(liveCounts.disposers, baseline.disposers, "the counter sees the live subscription")
        scheduler.start()
        XCTAssertTrue(completed)
        XCTAssertNil(weakCompleting, "freed after completion")
        XCTAssertLessThanOrEqual(liveCounts.sinks, baseline.sinks, "sinks freed after completion")
        // The caller's own handle is all that is left; dropping it frees it.
        subscription.dispose()
        subscription = Disposables.create()
        assertNoSinkOrDisposerLeft(since: baseline, "after completion")

        // Disposal: the same chain disposed between two ticks, then the work
        // it had already scheduled (its disposal on the scheduler) runs.
        let disposing = TestScheduler(initialClock: 0)
        weak var weakDisposed: LifetimeToken?
        var received = 0
        do {
            let token = LifetimeToken()
            weakDisposed = token
            subscription = Observable<Int>.interval(.seconds(10), scheduler: disposing)
                .map { value in (value, token) }
                .filter { _ in true }
                .observe(on: disposing)
                .subscribe(on: disposing)
                .subscribe(onNext: { _ in received += 1 })
        }
        disposing.advanceTo(25)
        XCTAssertEqual(received, 2)
        XCTAssertNotNil(weakDisposed)
        subscription.dispose()
        subscription = Disposables.create()
        disposing.start()
        XCTAssertEqual(received, 2)
        XCTAssertNil(weakDisposed, "freed after disposal")
        assertNoSinkOrDisposerLeft(since: baseline, "after disposal")

        // Scheduled actions: freed once run, and at once when disposed before
        // they run, without waiting for the due time or for the scheduler.
        let virtual = TestScheduler(initialClock: 0)
        weak var weakRan: LifetimeToken?
        weak var weakPending: LifetimeToken?
        weak var weakPeriodic: LifetimeToken?
        let ran: Disposable
        let pending: Disposable
        let periodic: Disposable
        do {
            let ranToken = LifetimeToken()
            let pendingToken = LifetimeToken()
            let periodicToken = LifetimeToken()
            weakRan = ranToken
            weakPending = pendingToken
            weakPeriodic = periodicToken
            ran = virtual.scheduleRelative(ranToken, dueTime: .seconds(1)) { _ in Disposables.create() }
            pending = virtual.scheduleRelative((), dueTime: .seconds(1_000)) { _ in
                _ = pendingToken
                return Disposables.create()
            }
            periodic = virtual.schedulePeriodic(periodicToken, startAfter: .seconds(1), period: .seconds(1)) { $0 }
        }
        virtual.advanceTo(5)
        XCTAssertNil(weakRan, "a scheduled action is freed once it ran")
        XCTAssertNotNil(weakPending)
        XCTAssertNotNil(weakPeriodic)
        pending.dispose()
        XCTAssertNil(weakPending, "a pending action is freed at once when disposed")
        periodic.dispose()
        XCTAssertNil(weakPeriodic, "a periodic job is freed at once when disposed")
        ran.dispose()

        // The same on a dispatch queue: a delayed action disposed an hour
        // before its due time releases what it captured.
        let dispatch = SerialDispatchQueueScheduler(internalSerialQueueName: "guarantee-8")
        weak var weakDelayed: LifetimeToken?
        let delayed: Disposable
        do {
            let token = LifetimeToken()
            weakDelayed = token
            delayed = dispatch.scheduleRelative(token, dueTime: .seconds(3_600)) { _ in Disposables.create() }
        }
        XCTAssertNotNil(weakDelayed)
        delayed.dispose()
        XCTAssertTrue(dispatchEventually { weakDelayed == nil }, "a disposed delayed dispatch action is freed")

        // Trampoline: an action queued behind the running one and disposed
        // before its turn is freed by the time the trampoline drains.
        weak var weakQueued: LifetimeToken?
        _ = CurrentThreadScheduler.instance.schedule(()) { _ in
            let token = LifetimeToken()
            weakQueued = token
            CurrentThreadScheduler.instance.schedule(token) { _ in Disposables.create() }.dispose()
            return Disposables.create()
        }
        XCTAssertNil(weakQueued, "a disposed trampoline action is freed")
    }
}
