import Dispatch
import Foundation
import Schedulers
import Synchronization
import XCTest

/// Thread-safe recorder for the dispatch scheduler tests: events in order,
/// how many actions run at once, and the most that ever did.
final class DispatchProbe: @unchecked Sendable {
    private let mutex = Mutex<State>(State())

    private struct State {
        var events: [String] = []
        var running = 0
        var maxRunning = 0
        var count = 0
    }

    func record(_ event: String) {
        mutex.withLock { $0.events.append(event) }
    }

    var events: [String] {
        mutex.withLock { $0.events }
    }

    /// Counts one more action running; returns how many run now.
    @discardableResult
    func enter() -> Int {
        mutex.withLock { state in
            state.running += 1
            state.count += 1
            state.maxRunning = max(state.maxRunning, state.running)
            return state.running
        }
    }

    func leave() {
        mutex.withLock { $0.running -= 1 }
    }

    /// The most actions that ever ran at once.
    var maxRunning: Int {
        mutex.withLock { $0.maxRunning }
    }

    /// How many actions entered.
    var count: Int {
        mutex.withLock { $0.count }
    }
}

/// A disposable that counts its disposals.
final class DispatchCountingDisposable: Cancelable, @unchecked Sendable {
    private let disposals = Atomic<Int>(0)

    var disposeCount: Int {
        disposals.load(ordering: .acquiring)
    }

    var isDisposed: Bool {
        disposeCount > 0
    }

    func dispose() {
        disposals.add(1, ordering: .acquiringAndReleasing)
    }
}

/// An object whose lifetime a test watches through a weak reference.
final class DispatchTracked: @unchecked Sendable {
    let value: Int

    init(_ value: Int = 0) {
        self.value = value
    }
}

/// Waits, polling, until `condition` holds or `timeout` seconds pass.
/// Returns whether it held. Polling also services the main queue when called
/// on the main thread, so main-queue work can make the condition true.
func dispatchEventually(timeout: TimeInterval = 5, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while !condition() {
        if Date() >= deadline {
            return false
        }
        if Thread.isMainThread {
            MainScheduler.runMainQueue(until: Date().addingTimeInterval(0.002))
        } else {
            usleep(1_000)
        }
    }
    return true
}

/// Waits until everything scheduled on the serial `scheduler` so far has
/// run, by scheduling a marker behind it (FIFO) and waiting for it.
func dispatchDrain(_ scheduler: SerialScheduler) {
    let marker = DispatchSemaphore(value: 0)
    _ = scheduler.scheduleInOrder(()) { _ in
        marker.signal()
        return Disposables.create()
    }
    if marker.wait(timeout: .now() + 10) == .timedOut {
        XCTFail("the scheduler did not drain within 10 s")
    }
}

/// Runs a crashing check in a child copy of the test process, because a
/// precondition failure cannot be caught in-process.
///
/// In the parent, re-runs the calling test alone in a child process with an
/// environment variable naming it; in the child, runs `body`, which must stop
/// the program. The parent then asserts that the child died and that its
/// standard error contains `message`.
enum DispatchPreconditionProbe {
    private static let variable = "SCHEDULERS_DISPATCH_PRECONDITION_CHILD"

    static func expectPrecondition(
        message: String,
        testCase: XCTestCase,
        testName: String = #function,
        file: StaticString = #filePath,
        line: UInt = #line,
        _ body: () -> Void
    ) {
        let method = testName.hasSuffix("()") ? String(testName.dropLast(2)) : testName
        let identifier = "SchedulersTests.\(type(of: testCase))/\(method)"
        if ProcessInfo.processInfo.environment[variable] == identifier {
            body()
            XCTFail("expected a precondition failure, but \(identifier) returned", file: file, line: line)
            return
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        process.arguments = [identifier]
        var environment = ProcessInfo.processInfo.environment
        environment[variable] = identifier
        // No symbolicated backtrace: it would only slow the child's death.
        environment["SWIFT_BACKTRACE"] = "enable=no"
        process.environment = environment
        let errorPipe = Pipe()
        process.standardError = errorPipe
        process.standardOutput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            XCTFail("could not start the child test process: \(error)", file: file, line: line)
            return
        }
        let errorOutput = errorPipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let errorText = String(decoding: errorOutput, as: UTF8.self)
        XCTAssertEqual(process.terminationReason, .uncaughtSignal, "child did not crash; stderr:\n\(errorText)", file: file, line: line)
        XCTAssertTrue(errorText.contains(message), "child's stderr lacks \"\(message)\":\n\(errorText)", file: file, line: line)
    }
}
