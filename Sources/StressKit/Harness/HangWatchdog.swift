import Foundation
import Synchronization
import ToolSupport

/// Watches a piece of work that must finish within a bound: armed before
/// the work starts and disarmed once it returns, it calls its handler, once,
/// on a thread of its own, when the work stays armed longer than the bound.
///
/// A hung actor, `settle()` or arbiter cannot be unwound from outside, so the
/// handler decides what happens next: the runner reports a forbidden `hung`
/// outcome and ends the process (its parent, under `--isolate`, goes on with
/// the next scenario). The watchdog never stops a thread itself.
final class HangWatchdog: @unchecked Sendable {
    /// How long an armed piece of work may run.
    let seconds: Double
    /// When the work was armed (monotonic ns), or 0 while disarmed.
    private let armedAt = Atomic<UInt64>(0)
    /// What is armed, for the report. Guarded by `lock`.
    private let context = Mutex<String>("")
    private let stopping = Atomic<Bool>(false)
    private let stopped = DispatchSemaphore(value: 0)

    /// Starts the watching thread; `onHang` gets what was armed and runs on it.
    init(seconds: Double, name: String, onHang: @escaping @Sendable (_ context: String) -> Void) {
        precondition(seconds > 0, "HangWatchdog(seconds:) must be positive")
        self.seconds = seconds
        let bound = UInt64(seconds * 1e9)
        let poll = UInt32(min(max(seconds / 20, 0.005), 0.1) * 1e6)
        let thread = Thread { [self] in
            while !stopping.load(ordering: .acquiring) {
                usleep(poll)
                let since = armedAt.load(ordering: .acquiring)
                guard since != 0, monotonicNanoseconds() &- since > bound else { continue }
                onHang(context.withLock { $0 })
                // The handler ends the process; if it returns, the watchdog is done.
                break
            }
            stopped.signal()
        }
        thread.name = "stress.watchdog.\(name)"
        thread.start()
    }

    /// Starts the clock on the work described by `what`.
    func arm(_ what: String) {
        context.withLock { $0 = what }
        armedAt.store(max(monotonicNanoseconds(), 1), ordering: .releasing)
    }

    /// The armed work returned.
    func disarm() {
        armedAt.store(0, ordering: .releasing)
    }

    /// Stops watching and waits for the thread to end.
    func stop() {
        disarm()
        stopping.store(true, ordering: .releasing)
        stopped.wait()
    }
}

extension HangWatchdog {
    /// A watchdog for one scenario's run: when what it armed hangs, it hands
    /// `onHang` the result so far (`progress`'s counts, and one forbidden
    /// ``StressRunner/hungOutcome(seconds:)``).
    static func reporting<Scenario: StressScenario>(
        _ scenario: Scenario, declared: [OutcomeDeclaration], seed: UInt64, seconds: Double, started: UInt64,
        progress: HangProgress, onHang: @escaping @Sendable (ScenarioResult) -> Void
    ) -> HangWatchdog {
        let name = scenario.name, guarantees = scenario.guarantees, summary = scenario.summary
        // Live instances are not counted: the hung iteration still holds its own.
        return HangWatchdog(seconds: seconds, name: name) { context in
            let (done, counts) = progress.snapshot
            let partial = ScenarioResult.partial(
                name: name, guarantees: guarantees, summary: summary, seed: seed, declared: declared,
                iterations: done, counts: counts, seconds: Double(monotonicNanoseconds() - started) / 1e9)
            var result = ScenarioResult(
                name: name, guarantees: guarantees, summary: summary, seed: seed, iterations: done,
                seconds: partial.seconds,
                rows: partial.rows + [ScenarioResult.Row(outcome: StressRunner.hungOutcome(seconds: seconds), count: 1)],
                leaked: 0)
            result.stoppedBecause = "hung: \(context) did not finish within \(NumberFormat.twoDecimals(seconds)) s; "
                + "seed \(seed) makes the same choices again"
            onHang(result)
        }
    }
}

/// What a run has counted so far, for the report of a hang: written by the
/// running thread after each batch (or schedule), read by the watchdog.
final class HangProgress: Sendable {
    private let state: Mutex<(iterations: Int, counts: [Int])>

    init(outcomes: Int) {
        state = Mutex((0, Array(repeating: 0, count: outcomes)))
    }

    func update(iterations: Int, counts: [Int]) {
        state.withLock { $0 = (iterations, counts) }
    }

    var snapshot: (iterations: Int, counts: [Int]) {
        state.withLock { $0 }
    }
}

/// Every thread's stack of a process, as `gdb` prints them, with Swift
/// names demangled; `nil` with a reason when they cannot be had.
enum ThreadStacks {
    /// The stacks of process `pid` (this process by default), or why not.
    static func dump(pid: Int32 = getpid()) -> String {
        guard let gdb = ["/usr/bin/gdb", "/usr/local/bin/gdb"].first(where: FileManager.default.isExecutableFile) else {
            return "(every thread's stack needs gdb: apt-get install -y gdb)"
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: gdb)
        process.arguments = [
            "-p", String(pid), "-batch", "-nx", "-ex", "set pagination off", "-ex", "thread apply all bt 40",
        ]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            return "(could not run gdb: \(error.localizedDescription))"
        }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        let stacks = text.split(separator: "\n", omittingEmptySubsequences: false)
            .filter { $0.hasPrefix("Thread ") || $0.hasPrefix("#") }
            .joined(separator: "\n")
        guard !stacks.isEmpty else {
            return "(gdb printed no stacks: attaching to a process needs ptrace permission)"
        }
        return demangle(stacks)
    }

    /// `text` with Swift symbols demangled, when `swift demangle` is at hand.
    private static func demangle(_ text: String) -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["swift-demangle", "--simplified"]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            return text
        }
        // Written from a thread of its own: a pipe holds only so much, and the
        // demangler writes while it reads.
        let writer = Thread {
            input.fileHandleForWriting.write(Data(text.utf8))
            try? input.fileHandleForWriting.close()
        }
        writer.start()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return process.terminationStatus == 0 && !data.isEmpty ? String(decoding: data, as: UTF8.self) : text
    }
}
