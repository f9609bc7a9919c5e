import Synchronization

/// How one way of writing a "sleep, advance, check" test fared over many runs.
///
/// One run: a task sleeps one second on a test clock and sets a flag once its
/// sleep returned; the test advances the clock by one second the way that
/// clock is meant to be used; then it looks at the flag.
/// - `notYetRunAtReturn`: the flag was not set when the advance returned, so
///   an assertion written right after the advance would have failed (the task
///   may still have been woken and be about to run).
/// - `lost`: the sleeper was never woken by that advance. Where the clock can
///   tell (`isLost`, read right after the advance), that answer; otherwise
///   the task had not passed its sleep `lostAfterMilliseconds` of real time
///   later (a woken task gets there in microseconds; on a stalled machine
///   this can overcount, so such figures are reported, never asserted).
///   A lost sleeper's task is cancelled.
struct WakeUpMissTally: CustomStringConvertible {
    let label: String
    private(set) var runs = 0
    private(set) var notYetRunAtReturn = 0
    private(set) var lost = 0

    /// Real time after which a sleeper not past its sleep counts as lost.
    static let lostAfterMilliseconds = 20

    init(label: String) {
        self.label = label
    }

    /// Runs `runs` times: `sleep` in a new task, then `advance` in the test.
    /// `makeRun` builds a fresh clock per run and returns the two halves.
    mutating func record(
        runs: Int,
        makeRun: () -> (
            sleep: @Sendable () async throws -> Void, advance: () async throws -> Void, isLost: (() -> Bool)?
        )
    ) async throws {
        for _ in 0..<runs {
            let (sleep, advance, isLost) = makeRun()
            let passedSleep = Woken()
            let sleeper = Task {
                try await sleep()
                passedSleep.set()
            }
            try await advance()
            self.runs += 1
            let wasLost: Bool
            if let isLost {
                wasLost = isLost()
                if !passedSleep.isSet { notYetRunAtReturn += 1 }
            } else if !passedSleep.isSet {
                notYetRunAtReturn += 1
                wasLost = try await !passedSleep.wait(milliseconds: Self.lostAfterMilliseconds)
            } else {
                wasLost = false
            }
            if wasLost {
                lost += 1
                sleeper.cancel()
            }
            _ = try? await sleeper.value
        }
    }

    var description: String {
        let padded = label.padding(toLength: 50, withPad: " ", startingAt: 0)
        return "\(padded) \(pad(runs)) \(pad(notYetRunAtReturn)) \(pad(lost))"
    }

    static var header: String {
        "clock, and how the test advances it".padding(toLength: 50, withPad: " ", startingAt: 0)
            + "   runs  not-run  lost"
    }

    private func pad(_ value: Int) -> String {
        let text = String(value)
        return String(repeating: " ", count: max(0, 7 - text.count)) + text
    }
}

/// Set by the sleeping task once its sleep returned.
final class Woken: Sendable {
    private let state = Atomic<Bool>(false)

    func set() {
        state.store(true, ordering: .releasing)
    }

    var isSet: Bool {
        state.load(ordering: .acquiring)
    }

    /// Whether it is set within `milliseconds` of real time (checked each millisecond).
    func wait(milliseconds: Int) async throws -> Bool {
        for _ in 0..<milliseconds {
            if isSet { return true }
            try await Task.sleep(for: .milliseconds(1))
        }
        return isSet
    }
}
