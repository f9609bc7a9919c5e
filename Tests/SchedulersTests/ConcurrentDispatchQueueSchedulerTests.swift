import Dispatch
import Foundation
import Schedulers
import Testing

@Suite struct ConcurrentDispatchQueueSchedulerTests {
    private func requirePeriodic<S: PeriodicScheduler>(_ scheduler: S) {}

    @Test
    func conformsToPeriodicSchedulerButNotSerialScheduler() {
        let scheduler = ConcurrentDispatchQueueScheduler(qos: .default)
        requirePeriodic(scheduler)
        let asImmediate: ImmediateSchedulerType = scheduler
        #expect(asImmediate as? SerialScheduler == nil)
    }

    @Test(.tags(.guarantee10))
    func runsActionsConcurrentlyOnAConcurrentQueue() {
        let queue = DispatchQueue(label: "test.concurrent", attributes: .concurrent)
        let scheduler = ConcurrentDispatchQueueScheduler(queue: queue)
        // Two actions that each wait for the other: they finish only if they run at once.
        let first = DispatchSemaphore(value: 0)
        let second = DispatchSemaphore(value: 0)
        let both = TestFulfilment(expectedCount: 2)
        _ = scheduler.schedule(()) { _ in
            first.signal()
            if second.wait(timeout: .now() + 10) == .success { both.fulfill() }
            return Disposables.create()
        }
        _ = scheduler.schedule(()) { _ in
            second.signal()
            if first.wait(timeout: .now() + 10) == .success { both.fulfill() }
            return Disposables.create()
        }
        #expect(both.wait(timeout: 15), "timed out waiting")
    }

    @Test
    func serialQueuePassedInRunsOneActionAtATime() {
        let scheduler = ConcurrentDispatchQueueScheduler(queue: DispatchQueue(label: "test.serial.passed"))
        let probe = DispatchProbe()
        let done = TestFulfilment(expectedCount: 100)
        for _ in 0..<100 {
            _ = scheduler.schedule(()) { _ in
                probe.enter()
                probe.leave()
                done.fulfill()
                return Disposables.create()
            }
        }
        #expect(done.wait(timeout: 10), "timed out waiting")
        #expect(probe.maxRunning == 1)
    }

    @Test(.tags(.guarantee5))
    func disposeRacingTheRunEitherSkipsTheActionOrDisposesItsResultOnce() {
        let queue = DispatchQueue(label: "test.concurrent.race", attributes: .concurrent)
        let scheduler = ConcurrentDispatchQueueScheduler(queue: queue)
        let rounds = 2_000
        let ran = DispatchProbe()
        var results: [DisposalCounter] = []
        for round in 0..<rounds {
            let result = DisposalCounter()
            results.append(result)
            let disposable = scheduler.schedule(round) { round in
                ran.record("\(round)")
                return result
            }
            if round % 3 != 0 { usleep(UInt32(round % 5)) }
            disposable.dispose()
        }
        queue.sync(flags: .barrier) {}
        let ranRounds = Set(ran.events.compactMap(Int.init))
        #expect(ranRounds.count == ran.events.count, "no action ran twice")
        for (round, result) in results.enumerated() {
            #expect(result.disposeCount == (ranRounds.contains(round) ? 1 : 0), "round \(round)")
        }
    }
}
