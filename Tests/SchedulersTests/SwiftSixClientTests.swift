import Dispatch
import Foundation
import Schedulers
import SchedulersTesting
import Synchronization
import XCTest

/// Code a Swift 6 client writes on the main actor: builds a chain whose
/// `map` closure is written here, and consumes a sequence with `values`.
@MainActor
final class MainActorClient {
    private(set) var shown: [String] = []
    private var factor = 2

    /// The RxSwift crash, as written there: the closure is created in
    /// `@MainActor` code and called by a background scheduler.
    func doubledOffTheMainThread(on scheduler: SerialDispatchQueueScheduler) -> Observable<String> {
        Observable.from([1, 2, 3], scheduler: scheduler)
            .map { value in "\(value * 2) on main thread: \(Thread.isMainThread)" }
    }

    func scaledOffTheMainThread(on scheduler: SerialDispatchQueueScheduler) -> Observable<Int> {
        Observable.from([1], scheduler: scheduler).map { $0 * self.factor }
    }

    /// Reads main-actor state in the closure: see the test of this method.
    func show(_ observable: Observable<Int>) async throws {
        for try await value in observable.values {
            shown.append("\(value * factor)")
        }
    }
}

/// An actor on a scheduler's executor, using the surface from inside.
actor SchedulerBoundClient {
    let scheduler: SerialDispatchQueueScheduler
    private var total = 0

    nonisolated var unownedExecutor: UnownedSerialExecutor {
        scheduler.executor.asUnownedSerialExecutor()
    }

    init(scheduler: SerialDispatchQueueScheduler) {
        self.scheduler = scheduler
    }

    func sum(_ observable: Observable<Int>) async throws -> Int {
        for try await value in observable.values {
            total += value
        }
        return total
    }
}

/// Lines recorded from any thread, without a closure (see the test below).
final class LineBox: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []

    func append(_ line: String) {
        lock.lock()
        lines.append(line)
        lock.unlock()
    }

    var all: [String] {
        lock.lock()
        defer { lock.unlock() }
        return lines
    }
}

final class SwiftSixClientTests: XCTestCase {
    /// The RxSwift crash (a `map` closure created in `@MainActor` code,
    /// called by a background scheduler, traps on the isolation check) does
    /// not happen here: the operators take plain non-`Sendable` closures from
    /// a Swift 6 module, so the compiler inserts no dynamic isolation check
    /// in them and the background scheduler calls them without trapping.
    /// The observer closure below, also written on the main actor, runs on
    /// the background queue too.
    ///
    /// Observed with swift 6.3 (Swift 6 mode): a closure nested in such a
    /// closure and passed to `Synchronization.Mutex.withLock` does get the
    /// check, and traps in `dispatch_assert_queue` when the background
    /// scheduler runs it; hence `LineBox`.
    @MainActor
    func testAMapClosureWrittenOnTheMainActorRunsOnABackgroundSchedulerWithoutTrapping() {
        let client = MainActorClient()
        let background = SerialDispatchQueueScheduler(internalSerialQueueName: "swift6.background")
        let lines = LineBox()
        let done = DispatchSemaphore(value: 0)
        _ = client.doubledOffTheMainThread(on: background).subscribe(AnyObserver { event in
            switch event {
            case .next(let line): lines.append(line)
            case .error, .completed: done.signal()
            }
        })
        done.wait()
        XCTAssertEqual(lines.all, [
            "2 on main thread: false",
            "4 on main thread: false",
            "6 on main thread: false",
        ])
    }

    /// The other side of the same coin: a `map` closure that reads
    /// main-actor state (`self.factor`) also compiles in Swift 6 mode with
    /// no diagnostic, and runs on the background queue unchecked, because
    /// `Observable` is `@unchecked Sendable` and its operator closures are
    /// not `@Sendable` (RxSwift source compatibility). Neither a compile
    /// error nor a trap: a data race if the main actor writes that state
    /// meanwhile. This test pins the behaviour; changing it (`@Sendable`
    /// operator closures) is an API decision, not made here.
    @MainActor
    func testAMapClosureReadingMainActorStateCompilesAndRunsOffTheMainActorUnchecked() {
        let client = MainActorClient()
        let background = SerialDispatchQueueScheduler(internalSerialQueueName: "swift6.probe")
        let lines = LineBox()
        let done = DispatchSemaphore(value: 0)
        _ = client.scaledOffTheMainThread(on: background).subscribe(AnyObserver { event in
            switch event {
            case .next(let value): lines.append("\(value) on main thread: \(Thread.isMainThread)")
            case .error, .completed: done.signal()
            }
        })
        done.wait()
        XCTAssertEqual(lines.all, ["2 on main thread: false"])
    }

    func testAnActorOnASchedulerConsumesValues() async throws {
        let client = SchedulerBoundClient(scheduler: SerialDispatchQueueScheduler(internalSerialQueueName: "swift6.actor"))
        let sum = try await client.sum(Observable.from(Array(1...10)))
        XCTAssertEqual(sum, 55)
    }
}
