import Foundation
import Schedulers
import SchedulersTesting
import XCTest

// The examples of the catalog's Swift Concurrency and Testing on Virtual Time
// articles, as written there (`DocReferenceTests` checks that the articles
// show this code), with `print` recording its lines; each test asserts the
// output the article shows.

/// An actor whose jobs run on a scheduler's serial queue.
// --- doc: Sources/Schedulers/Schedulers.docc/SwiftConcurrency.md ---
actor ScheduledCounter {
    let scheduler: SerialDispatchQueueScheduler
    private var count = 0

    nonisolated var unownedExecutor: UnownedSerialExecutor {
        scheduler.executor.asUnownedSerialExecutor()
    }

    init(scheduler: SerialDispatchQueueScheduler) {
        self.scheduler = scheduler
    }

    func increment() -> Int {
        count += 1
        return count
    }

    func isOnScheduler() -> Bool {
        scheduler.executor.isIsolated
    }
}
// --- end ---

final class ConcurrencyReadmeExamplesTests: XCTestCase {
    private let output = LineBox()

    private func print(_ line: String) {
        output.append(line)
    }

    func testActorOnAScheduler() async {
        // --- doc: Sources/Schedulers/Schedulers.docc/SwiftConcurrency.md ---
        let counter = ScheduledCounter(scheduler: SerialDispatchQueueScheduler(internalSerialQueueName: "counter"))
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<100 {
                group.addTask { _ = await counter.increment() }
            }
        }
        print("count: \(await counter.increment() - 1)")
        print("on the scheduler's queue: \(await counter.isOnScheduler())")
        // --- end ---
        XCTAssertEqual(output.all, ["count: 100", "on the scheduler's queue: true"])
    }

    func testTaskExecutor() async {
        // --- doc: Sources/Schedulers/Schedulers.docc/SwiftConcurrency.md ---
        let workers = OperationQueue()
        workers.name = "workers"
        workers.maxConcurrentOperationCount = 2
        let scheduler = OperationQueueScheduler(operationQueue: workers)
        let ranOn = await Task(executorPreference: scheduler.taskExecutor) {
            OperationQueue.current?.name ?? "elsewhere"
        }.value
        print("task body ran on: \(ranOn)")
        // --- end ---
        XCTAssertEqual(output.all, ["task body ran on: workers"])
    }

    func testValues() async {
        // --- doc: Sources/Schedulers/Schedulers.docc/SwiftConcurrency.md ---
        struct Failure: Error {}
        let numbers = Observable<Int>.create { observer in
            observer.onNext(1)
            observer.onNext(2)
            observer.onError(Failure())
            return Disposables.create()
        }
        do {
            for try await value in numbers.values(bufferingPolicy: .bufferingNewest(16)) {
                print("value \(value)")
            }
        } catch {
            print("error \(error)")
        }
        // --- end ---
        XCTAssertEqual(output.all, ["value 1", "value 2", "error Failure()"])
    }

    func testFromAsyncSequenceAndCreateAsync() async throws {
        // --- doc: Sources/Schedulers/Schedulers.docc/SwiftConcurrency.md ---
        let stream = AsyncStream<Int> { continuation in
            for value in 1...3 { continuation.yield(value) }
            continuation.finish()
        }
        for try await value in Observable.from(stream).map({ $0 * 10 }).values {
            print("from: \(value)")
        }
        let greeting = Observable<String>.createAsync { observer in
            try await Task.sleep(for: .milliseconds(1))
            observer.onNext("hello from a task")
        }
        for try await line in greeting.values {
            print(line)
        }
        // --- end ---
        XCTAssertEqual(output.all, ["from: 10", "from: 20", "from: 30", "hello from a task"])
    }

    func testVirtualTimeTaskExecutor() {
        // The task prints too: a local `print` it can capture.
        let output = self.output
        @Sendable func print(_ line: String) { output.append(line) }
        // --- doc: Sources/Schedulers/Schedulers.docc/TestingOnVirtualTime.md ---
        let scheduler = TestScheduler(initialClock: 0)
        let clock = scheduler.asClock()
        Task(executorPreference: scheduler.taskExecutor) {
            while true {
                try await clock.sleep(for: .seconds(5))
                print("tick at \(clock.now.offset)")
            }
        }
        scheduler.advanceTo(20)
        print("advanced to 20")
        // --- end ---
        XCTAssertEqual(output.all, [
            "tick at 5.0 seconds", "tick at 10.0 seconds", "tick at 15.0 seconds", "tick at 20.0 seconds",
            "advanced to 20",
        ])
    }

    func testVirtualTimeClock() async throws {
        // --- doc: Sources/Schedulers/Schedulers.docc/TestingOnVirtualTime.md ---
        let scheduler = TestScheduler(initialClock: 0)
        let clock = scheduler.asClock()
        let sleeper = Task {
            try await clock.sleep(for: .seconds(5))
            return clock.now.offset
        }
        try await clock.waitForSleepers(1)   // the task is asleep
        scheduler.advanceTo(4)
        print("after 4 s: \(clock.sleeperCount) asleep")
        scheduler.advanceTo(5)
        print("woke at \(try await sleeper.value)")
        // --- end ---
        XCTAssertEqual(output.all, ["after 4 s: 1 asleep", "woke at 5.0 seconds"])
    }
}
