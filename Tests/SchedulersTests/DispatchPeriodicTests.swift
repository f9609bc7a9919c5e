import Dispatch
import Foundation
import Schedulers
import Testing

/// Native periodic scheduling of the dispatch and operation-queue schedulers.
@Suite struct DispatchPeriodicTests {
    private func schedulers() -> [(name: String, scheduler: PeriodicScheduler)] {
        let operationQueue = OperationQueue()
        operationQueue.maxConcurrentOperationCount = 4
        return [
            ("serial", SerialDispatchQueueScheduler(internalSerialQueueName: "test.periodic.serial")),
            ("concurrent", ConcurrentDispatchQueueScheduler(queue: DispatchQueue(label: "test.periodic.concurrent", attributes: .concurrent))),
            ("operation queue", OperationQueueScheduler(operationQueue: operationQueue)),
        ]
    }

    @Test
    func eachTickReceivesTheStateThePreviousTickReturned() {
        for (name, scheduler) in schedulers() {
            let probe = DispatchProbe()
            let disposable = scheduler.schedulePeriodic(0, startAfter: .milliseconds(1), period: .milliseconds(1)) { tick in
                probe.record("\(tick)")
                return tick + 1
            }
            #expect(dispatchEventually { probe.events.count >= 5 }, "\(name)")
            disposable.dispose()
            #expect(Array(probe.events.prefix(5)) == ["0", "1", "2", "3", "4"], "\(name)")
        }
    }

    @Test
    func returnsAPeriodicDisposable() {
        for (name, scheduler) in schedulers() {
            let disposable = scheduler.schedulePeriodic((), startAfter: .seconds(60), period: .seconds(1)) { $0 }
            guard let periodic = disposable as? PeriodicDisposable else {
                Issue.record("\(name): not a PeriodicDisposable")
                continue
            }
            #expect(!periodic.isDisposed, "\(name)")
            #expect(periodic.skippedTicks == 0, "\(name)")
            periodic.dispose()
            #expect(periodic.isDisposed, "\(name)")
        }
    }

    @Test(.tags(.guarantee6))
    func noTickStartsAfterDisposeReturns() {
        for (name, scheduler) in schedulers() {
            for round in 0..<10 {
                let probe = DispatchProbe()
                let disposeReturned = DispatchProbe()
                let disposable = scheduler.schedulePeriodic((), startAfter: .nanoseconds(0), period: .microseconds(300)) { _ in
                    // A tick that passed its start check before dispose() may
                    // still be entering here afterwards; at most one can.
                    probe.record(disposeReturned.events.isEmpty ? "before" : "after")
                    return ()
                }
                #expect(dispatchEventually { probe.events.count >= 1 + round % 3 }, "\(name)")
                disposable.dispose()
                disposeReturned.record("returned")
                let afterDispose = probe.events.count
                usleep(10_000)
                let late = probe.events.filter { $0 == "after" }.count
                #expect(late <= 1, "\(name): ticks entered after dispose returned")
                #expect(probe.events.count <= afterDispose + 1, "\(name): ticks kept coming")
            }
        }
    }

    @Test(.tags(.guarantee6))
    func emulatedJobRunsAtMostTheTickAlreadyStartedAfterDisposeReturns() {
        let operationQueue = OperationQueue()
        operationQueue.maxConcurrentOperationCount = 2
        let schedulers: [(name: String, scheduler: PeriodicScheduler)] = [
            ("concurrent", ConcurrentDispatchQueueScheduler(queue: DispatchQueue(label: "test.emulated.concurrent", attributes: .concurrent))),
            ("operation queue", OperationQueueScheduler(operationQueue: operationQueue)),
        ]
        for (name, scheduler) in schedulers {
            for round in 0..<10 {
                let probe = DispatchProbe()
                let disposeReturned = DispatchProbe()
                let job = scheduler.schedulePeriodicEmulated((), startAfter: .nanoseconds(0), period: .microseconds(300)) { _ in
                    probe.record(disposeReturned.events.isEmpty ? "before" : "after")
                    return ()
                }
                #expect(dispatchEventually { probe.events.count >= 1 + round % 3 }, "\(name)")
                job.dispose()
                disposeReturned.record("returned")
                let afterDispose = probe.events.count
                usleep(10_000)
                // Only a tick that had started (taken its state under the job's
                // lock) before dispose() took the lock may reach its first line
                // after dispose() returned, and no tick follows it.
                #expect(probe.events.filter { $0 == "after" }.count <= 1, "\(name): ticks entered after dispose returned")
                #expect(probe.events.count <= afterDispose + 1, "\(name): ticks kept coming")
                #expect(job.isDisposed, "\(name)")
            }
        }
    }

    @Test(.tags(.guarantee6))
    func disposeReturnsWhileAStartedTickIsStillRunning() {
        // The tick waits for something the disposing thread does only after
        // dispose() returned (as an action waits for a lock the disposer
        // holds): dispose() must not wait for the tick.
        for (name, scheduler) in schedulers() {
            for emulated in [false, true] {
                let inTick = DispatchSemaphore(value: 0)
                let release = DispatchSemaphore(value: 0)
                let ticks = DispatchProbe()
                let action: (Int) -> Int = { tick in
                    ticks.record("\(tick)")
                    if tick == 0 {
                        inTick.signal()
                        release.wait()
                    }
                    return tick + 1
                }
                let job = emulated
                    ? scheduler.schedulePeriodicEmulated(0, startAfter: .nanoseconds(0), period: .milliseconds(1), action: action)
                    : scheduler.schedulePeriodic(0, startAfter: .nanoseconds(0), period: .milliseconds(1), action: action)
                inTick.wait()
                let disposed = DispatchSemaphore(value: 0)
                let handed = UncheckedBox(job)
                DispatchQueue.global().async {
                    handed.value.dispose()
                    disposed.signal()
                }
                let returned = disposed.wait(timeout: .now() + 10) == .success
                release.signal()
                if !returned { disposed.wait() }
                #expect(returned, "\(name)\(emulated ? " emulated" : ""): dispose() waited for the running tick")
                usleep(5_000)
                #expect(ticks.events == ["0"], "\(name)\(emulated ? " emulated" : ""): no tick after the one running")
            }
        }
    }

    @Test(.tags(.guarantee6))
    func noTickStartsAfterDisposeOnTheSerialQueueItself() {
        let scheduler = SerialDispatchQueueScheduler(internalSerialQueueName: "test.periodic.dispose.on.queue")
        let probe = DispatchProbe()
        let disposable = scheduler.schedulePeriodic((), startAfter: .nanoseconds(0), period: .microseconds(200)) { _ in
            probe.record("tick")
            return ()
        }
        #expect(dispatchEventually { probe.events.count >= 3 })
        // On the serial queue no tick runs while this action does, so any tick
        // recorded after the marker started after dispose() returned.
        _ = scheduler.schedule(()) { _ in
            disposable.dispose()
            probe.record("disposed")
            return Disposables.create()
        }
        #expect(dispatchEventually { probe.events.last == "disposed" || probe.events.contains("disposed") })
        usleep(10_000)
        dispatchDrain(scheduler)
        #expect(probe.events.last == "disposed")
    }

    @Test
    func disposingFromInsideATickStopsTheJob() {
        for (name, scheduler) in schedulers() {
            let probe = DispatchProbe()
            let holder = SingleAssignmentDisposable()
            let assigned = DispatchSemaphore(value: 0)
            let disposable = scheduler.schedulePeriodic(0, startAfter: .nanoseconds(0), period: .microseconds(500)) { tick in
                probe.record("\(tick)")
                if tick == 2 {
                    // However slow this thread, dispose the job itself, not a placeholder.
                    assigned.wait()
                    holder.dispose()
                }
                return tick + 1
            }
            holder.setDisposable(disposable)
            assigned.signal()
            #expect(dispatchEventually { probe.events.count >= 3 }, "\(name)")
            usleep(10_000)
            #expect(probe.events == ["0", "1", "2"], "\(name)")
            #expect((disposable as? Cancelable)?.isDisposed == true, "\(name)")
        }
    }

    @Test
    func skippedTicksCountsFiresMergedWhileTheQueueWasSuspended() {
        let queue = DispatchQueue(label: "test.periodic.suspended")
        let scheduler = SerialDispatchQueueScheduler(queue: queue, internalSerialQueueName: "test.periodic.suspended.serial")
        let probe = DispatchProbe()
        queue.suspend()
        let disposable = scheduler.schedulePeriodic(0, startAfter: .nanoseconds(0), period: .milliseconds(1)) { tick in
            probe.record("\(tick)")
            return tick + 1
        }
        usleep(30_000)
        #expect(probe.events == [])
        queue.resume()
        #expect(dispatchEventually { !probe.events.isEmpty })
        disposable.dispose()
        #expect(probe.events.first == "0", "one merged tick, with the first state")
        #expect((disposable as? PeriodicDisposable)?.skippedTicks ?? 0 > 0)
    }

    @Test(.tags(.guarantee9))
    func tickCancelledByTheOperationQueueIsSkippedAndTheJobGoesOn() {
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let scheduler = OperationQueueScheduler(operationQueue: queue)
        let probe = DispatchProbe()
        queue.isSuspended = true
        let disposable = scheduler.schedulePeriodic(0, startAfter: .nanoseconds(0), period: .milliseconds(1)) { tick in
            probe.record("\(tick)")
            return tick + 1
        }
        #expect(dispatchEventually { queue.operationCount >= 1 })
        queue.cancelAllOperations()
        queue.isSuspended = false
        #expect(dispatchEventually { probe.events.count >= 2 })
        disposable.dispose()
        #expect(Array(probe.events.prefix(2)) == ["0", "1"], "the cancelled tick kept its state for the next one")
        #expect((disposable as? PeriodicDisposable)?.skippedTicks ?? 0 > 0)
    }

    @Test(.tags(.guarantee8))
    func disposingReleasesATickQueuedOnASuspendedOperationQueue() {
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let scheduler = OperationQueueScheduler(operationQueue: queue)
        let probe = DispatchProbe()
        weak var weakState: DispatchTracked?
        queue.isSuspended = true
        var disposable: Disposable?
        do {
            let state = DispatchTracked()
            weakState = state
            disposable = scheduler.schedulePeriodic(state, startAfter: .nanoseconds(0), period: .milliseconds(1)) { state in
                probe.record("tick")
                return state
            }
        }
        #expect(dispatchEventually { queue.operationCount >= 1 })
        disposable?.dispose()
        #expect(dispatchEventually { weakState == nil }, "released while the queue is still suspended")
        queue.isSuspended = false
        queue.waitUntilAllOperationsAreFinished()
        #expect(probe.events == [])
    }

    @Test
    func neverStartAfterNeverTicks() {
        for (name, scheduler) in schedulers() {
            let probe = DispatchProbe()
            let disposable = scheduler.schedulePeriodic((), startAfter: .never, period: .milliseconds(1)) { _ in
                probe.record("tick")
                return ()
            }
            usleep(10_000)
            #expect(probe.events == [], "\(name)")
            disposable.dispose()
        }
    }

    @Test
    func negativeStartAfterTicksAtOnce() {
        for (name, scheduler) in schedulers() {
            let probe = DispatchProbe()
            let disposable = scheduler.schedulePeriodic((), startAfter: .seconds(-5), period: .seconds(60)) { _ in
                probe.record("tick")
                return ()
            }
            #expect(dispatchEventually { probe.events == ["tick"] }, "\(name)")
            disposable.dispose()
        }
    }

    @Test(.tags(.guarantee8))
    func disposingReleasesStateAndAction() {
        for (name, scheduler) in schedulers() {
            weak var weakState: DispatchTracked?
            weak var weakCaptured: DispatchTracked?
            var disposable: Disposable?
            do {
                let state = DispatchTracked(1)
                let captured = DispatchTracked(2)
                weakState = state
                weakCaptured = captured
                disposable = scheduler.schedulePeriodic(state, startAfter: .seconds(60), period: .seconds(60)) { state in
                    _ = captured.value
                    return state
                }
            }
            #expect(weakState != nil, "\(name)")
            #expect(weakCaptured != nil, "\(name)")
            disposable?.dispose()
            #expect(dispatchEventually { weakState == nil && weakCaptured == nil }, "\(name)")
            disposable = nil
        }
    }

    @Test
    func zeroPeriodTicksLikeRxSwiftAndLetsOtherWorkRun() {
        // Was a stop: RxSwift accepts a zero period on a dispatch scheduler
        // (its timer repeats at libdispatch's shortest interval), so this
        // library does too. Each tick is its own turn of the serial queue, so
        // work scheduled meanwhile still runs.
        let scheduler = SerialDispatchQueueScheduler(internalSerialQueueName: "test.periodic.zero")
        let probe = ZeroPeriodProbe()
        let disposable = scheduler.schedulePeriodic(0, startAfter: .seconds(0), period: .seconds(0)) { tick in
            probe.tick(tick)
            if tick == 3 {
                _ = scheduler.schedule(()) { _ in
                    probe.otherWorkRan(afterTicks: tick)
                    return Disposables.create()
                }
            }
            return tick + 1
        }
        #expect(dispatchEventually { probe.otherWorkRanAfter != nil && probe.ticks >= 10 })
        disposable.dispose()
        #expect(probe.ticksOutOfOrder == 0, "each tick gets the state the previous one returned")
        #expect((disposable as? PeriodicDisposable)?.skippedTicks == 0)
    }
}

private final class ZeroPeriodProbe: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    private var ranAfter: Int?
    private var disorder = 0

    func tick(_ state: Int) {
        lock.lock()
        if state != count { disorder += 1 }
        count += 1
        lock.unlock()
    }

    var ticksOutOfOrder: Int {
        lock.lock()
        defer { lock.unlock() }
        return disorder
    }

    func otherWorkRan(afterTicks ticks: Int) {
        lock.lock()
        ranAfter = ticks
        lock.unlock()
    }

    var ticks: Int {
        lock.lock()
        defer { lock.unlock() }
        return count
    }

    var otherWorkRanAfter: Int? {
        lock.lock()
        defer { lock.unlock() }
        return ranAfter
    }
}
