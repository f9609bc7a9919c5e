import Dispatch
import Foundation
import Schedulers
import Synchronization
import XCTest

/// The order in which work ran on a scheduler's queue: the sequence numbers
/// of the jobs (0 and up) and `timedMark` where the timed work ran.
private final class RunOrder: Sendable {
    static let timedMark = -1
    private let entries = Mutex<[Int]>([])

    func append(_ entry: Int) {
        entries.withLock { $0.append(entry) }
    }

    var snapshot: [Int] {
        entries.withLock { $0 }
    }
}

/// An actor on a serial dispatch scheduler's executor that logs each call.
private actor FloodTarget {
    private let scheduler: SerialDispatchQueueScheduler
    private let order: RunOrder
    private let state: FloodState

    nonisolated var unownedExecutor: UnownedSerialExecutor {
        scheduler.executor.asUnownedSerialExecutor()
    }

    init(scheduler: SerialDispatchQueueScheduler, order: RunOrder, state: FloodState) {
        self.scheduler = scheduler
        self.order = order
        self.state = state
    }

    /// Logs `sequence`, takes a few microseconds, and, until the flood
    /// stops, makes the next call: a task isolated to this actor, whose
    /// first job is enqueued on the actor's executor while this one runs.
    /// So a job of the chain always waits behind the running one, and the
    /// executor's open batch never runs out of jobs on its own.
    func record(_ sequence: Int) {
        order.append(sequence)
        let until = DispatchTime.now().uptimeNanoseconds + 5_000
        while DispatchTime.now().uptimeNanoseconds < until {}
        guard !state.stop.load(ordering: .relaxed) else {
            state.chainsEnded.add(1, ordering: .releasing)
            return
        }
        let next = state.issued.add(1, ordering: .relaxed).oldValue
        Task {
            self.record(next)
        }
    }
}

/// What the flood shares with the test: the sequence numbers handed out,
/// whether to stop, and the first number handed out after the mark.
private final class FloodState: Sendable {
    let issued = Atomic<Int>(0)
    let stop = Atomic<Bool>(false)
    let timedRan = Atomic<Bool>(false)
    /// Chains of calls that have stopped.
    let chainsEnded = Atomic<Int>(0)
    /// The first sequence number issued after the mark timer fired; `Int.max` until then.
    let lateFrom = Atomic<Int>(.max)
}

/// A due timer, a periodic job's first tick and `interval`'s first element
/// on a `SerialDispatchQueueScheduler` take their place in the queue's order
/// when their timer fires: jobs of the scheduler's executor enqueued after
/// that run after them, however many keep coming (`ExecutorBatchGate`).
///
/// Each test floods an actor on the scheduler's executor with two chains of
/// calls, each call making the next (so a call always waits behind the
/// running one), each numbered as it is made, arms the
/// timed work 20 ms ahead, and arms a mark on a queue of its own half a
/// second after that due time. A call numbered after the mark fired was
/// made half a second after the timed work fell due, far longer than a
/// timer's fire takes to reach the queue: none of those calls may run
/// before the timed work. The waits are bounded (the flood stops after
/// 10 s); how late the timed work ran decides nothing.
final class SerialSchedulerTimerOrderTests: XCTestCase {
    private static let dueMilliseconds = 20
    private static let markMilliseconds = 520

    /// Runs the flood around `arm`, which arms the timed work on the
    /// scheduler to log `RunOrder.timedMark` (and call `ran`) when it runs
    /// first; returns how many calls made after the mark ran before it.
    private func callsMadeAfterTheMarkThatRanBefore(
        arm: (SerialDispatchQueueScheduler, @escaping @Sendable () -> Void) -> Disposable
    ) async throws -> Int {
        let scheduler = SerialDispatchQueueScheduler(internalSerialQueueName: "timer-order.flood")
        let order = RunOrder()
        let state = FloodState()
        let target = FloodTarget(scheduler: scheduler, order: order, state: state)
        let chains = 2
        for _ in 0..<chains {
            let first = state.issued.add(1, ordering: .relaxed).oldValue
            Task {
                await target.record(first)
            }
        }
        // The flood is on: the executor has a batch open.
        let started = Date().addingTimeInterval(10)
        while order.snapshot.count < 1_000, Date() < started {
            try await Task.sleep(nanoseconds: 1_000_000)
        }
        let timed = arm(scheduler) {
            if !state.timedRan.exchange(true, ordering: .relaxed) {
                order.append(RunOrder.timedMark)
            }
        }
        let mark = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "timer-order.mark"))
        mark.schedule(deadline: .now() + .milliseconds(Self.markMilliseconds))
        mark.setEventHandler {
            state.lateFrom.store(state.issued.load(ordering: .relaxed), ordering: .relaxed)
        }
        mark.activate()
        // Until the timed work ran and calls were made after the mark, at most 10 s.
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            let lateFrom = state.lateFrom.load(ordering: .relaxed)
            if state.timedRan.load(ordering: .relaxed), lateFrom != .max,
               state.issued.load(ordering: .relaxed) > lateFrom + 100 {
                break
            }
            try await Task.sleep(nanoseconds: 1_000_000)
        }
        state.stop.store(true, ordering: .relaxed)
        let floodEnded = Date().addingTimeInterval(10)
        while state.chainsEnded.load(ordering: .acquiring) < chains, Date() < floodEnded {
            try await Task.sleep(nanoseconds: 1_000_000)
        }
        // Without the flood the timed work runs (bounded wait).
        let drained = Date().addingTimeInterval(10)
        while !state.timedRan.load(ordering: .relaxed), Date() < drained {
            try await Task.sleep(nanoseconds: 1_000_000)
        }
        mark.cancel()
        timed.dispose()
        let ran = order.snapshot
        let position = try XCTUnwrap(ran.firstIndex(of: RunOrder.timedMark), "the timed work never ran")
        let lateFrom = state.lateFrom.load(ordering: .relaxed)
        XCTAssertNotEqual(lateFrom, .max, "the mark never fired")
        let overtaking = ran[..<position].filter { $0 >= lateFrom }.count
        print("\(name): \(position) calls ran before the timed work, \(overtaking) of them made after the mark")
        return overtaking
    }

    func testGuarantee10_ADueTimerIsNotOvertakenByJobsEnqueuedAfterItFellDue() async throws {
        let overtaking = try await callsMadeAfterTheMarkThatRanBefore { scheduler, ran in
            scheduler.scheduleRelative((), dueTime: .milliseconds(Self.dueMilliseconds)) { _ in
                ran()
                return Disposables.create()
            }
        }
        XCTAssertEqual(overtaking, 0, "jobs enqueued half a second after the timer fell due ran before it")
    }

    func testAPeriodicTickIsNotOvertakenByJobsEnqueuedAfterItFellDue() async throws {
        let overtaking = try await callsMadeAfterTheMarkThatRanBefore { scheduler, ran in
            scheduler.schedulePeriodic(
                0, startAfter: .milliseconds(Self.dueMilliseconds), period: .milliseconds(Self.dueMilliseconds)
            ) { tick in
                ran()
                return tick + 1
            }
        }
        XCTAssertEqual(overtaking, 0, "jobs enqueued half a second after the first tick fell due ran before it")
    }

    func testAnIntervalElementIsNotOvertakenByJobsEnqueuedAfterItFellDue() async throws {
        let overtaking = try await callsMadeAfterTheMarkThatRanBefore { scheduler, ran in
            Observable<Int>.interval(.milliseconds(Self.dueMilliseconds), scheduler: scheduler)
                .subscribe(onNext: { _ in ran() })
        }
        XCTAssertEqual(overtaking, 0, "jobs enqueued half a second after the first element fell due ran before it")
    }

    /// A tick that fell due while the previous tick ran is enqueued when its
    /// timer fired, so it runs before an action scheduled after that: the
    /// first tick runs for half a second (a hundred periods: the timer
    /// fires meanwhile) and schedules an action as it ends; the next tick
    /// runs before that action. A tick whose fire found the previous one on
    /// the queue and enqueued nothing would run only at a later fire, after
    /// the action.
    func testATickThatFellDueDuringTheLastTickRunsBeforeWorkEnqueuedAfterIt() {
        let scheduler = SerialDispatchQueueScheduler(internalSerialQueueName: "timer-order.tick-during-tick")
        let order = RunOrder()
        let done = TestFulfilment()
        let job = scheduler.schedulePeriodic(0, startAfter: .milliseconds(5), period: .milliseconds(5)) { tick in
            order.append(tick)
            switch tick {
            case 0:
                usleep(500_000)
                _ = scheduler.schedule(()) { _ in
                    order.append(RunOrder.timedMark)
                    return Disposables.create()
                }
            case 1:
                done.fulfill()
            default:
                break
            }
            return tick + 1
        }
        XCTAssertTrue(done.wait(timeout: 10), "the second tick never ran")
        job.dispose()
        dispatchDrain(scheduler)
        XCTAssertEqual(Array(order.snapshot.prefix(3)), [0, 1, RunOrder.timedMark])
    }
}
