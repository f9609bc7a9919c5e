import Dispatch
import Foundation
import Schedulers
import Synchronization
import XCTest

/// An actor on the main scheduler's executor: records, in each job, whether
/// it runs on the main thread and holds the main actor's isolation.
private actor MainQueueRecorder {
    private var lines: [String] = []

    nonisolated var unownedExecutor: UnownedSerialExecutor {
        MainScheduler.instance.executor.asUnownedSerialExecutor()
    }

    func record(_ name: String) {
        // Traps if the main actor's isolation does not hold here.
        let onMainActor = MainActor.assumeIsolated { Thread.isMainThread }
        lines.append("\(name): main thread \(onMainActor), executor isolated \(MainScheduler.instance.executor.isIsolated)")
    }

    var recorded: [String] { lines }
}

final class MainSchedulerExecutorTests: XCTestCase {
    func testAnActorOnTheMainSchedulerRunsWhereTheMainActorsIsolationHolds() {
        XCTAssertTrue(Thread.isMainThread, "XCTest runs tests on the main thread")
        let recorder = MainQueueRecorder()
        let result = Mutex<[String]?>(nil)
        Task.detached {
            for index in 0..<3 {
                await recorder.record("job \(index)")
            }
            let lines = await recorder.recorded
            result.withLock { $0 = lines }
        }
        let finished = MainScheduler.runMainQueue(until: Date().addingTimeInterval(10), while: { result.withLock { $0 == nil } })
        XCTAssertTrue(finished)
        XCTAssertEqual(result.withLock { $0 }, [
            "job 0: main thread true, executor isolated true",
            "job 1: main thread true, executor isolated true",
            "job 2: main thread true, executor isolated true",
        ])
    }

    func testTheMainSchedulersExecutorIsTheMainActors() {
        let executor = MainScheduler.instance.executor
        XCTAssertTrue(executor === MainScheduler.instance.executor)
        // Same unowned executor as the main actor: the runtime treats an
        // actor on it as isolated to the main actor.
        // (UnownedSerialExecutor is not Equatable here: compare its bits.)
        func bits(_ executor: UnownedSerialExecutor) -> [UInt8] {
            withUnsafeBytes(of: executor) { Array($0) }
        }
        let actorsExecutor = bits(MainActor.sharedUnownedExecutor)
        XCTAssertEqual(bits(executor.asUnownedSerialExecutor()), actorsExecutor)
        XCTAssertEqual(bits(MainScheduler.asyncInstance.executor.asUnownedSerialExecutor()), actorsExecutor)
        let other = SerialDispatchQueueScheduler(internalSerialQueueName: "not-main").executor
        XCTAssertNotEqual(bits(other.asUnownedSerialExecutor()), actorsExecutor)
        XCTAssertTrue(executor.isIsolated, "the test runs on the main thread, on the main queue")
    }

    func testAMainSchedulerActionHoldsTheMainActorsIsolation() {
        let lines = Mutex<[String]>([])
        DispatchQueue.global().async {
            _ = MainScheduler.instance.schedule(()) { _ in
                let answer = MainActor.assumeIsolated { Thread.isMainThread }
                lines.withLock { $0.append("assumeIsolated held, main thread \(answer)") }
                return Disposables.create()
            }
        }
        XCTAssertTrue(MainScheduler.runMainQueue(until: Date().addingTimeInterval(10), while: { lines.withLock { $0.isEmpty } }))
        XCTAssertEqual(lines.withLock { $0 }, ["assumeIsolated held, main thread true"])
    }
}
