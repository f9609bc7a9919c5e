import Foundation
import XCTest

/// The tests that take minutes in a debug build: the statistical simulations
/// of compare (thousands of simulated comparisons of runs of ninety series)
/// and a run of the whole benchmark suite. Plain `swift test` skips them,
/// saying why, unless the environment sets `SCHEDULERS_RUN_SLOW_TESTS=1`
/// (as SwiftNIO's `SWIFTNIO_RUN_SLOW_TESTS`); CI sets it and runs every one
/// of them, with their full sample sizes (docs/CI.md, "Slow tests").
///
/// A test is slow when it calls ``require(_:)`` first; CI finds them by that
/// call, so a new slow test is run there without being listed anywhere.
enum SlowTests {
    /// The environment variable that turns them on.
    static let variable = "SCHEDULERS_RUN_SLOW_TESTS"

    /// Whether `variable` is set to anything but empty or `0`.
    static var enabled: Bool {
        guard let value = ProcessInfo.processInfo.environment[variable] else { return false }
        return !value.isEmpty && value != "0"
    }

    /// Skips the calling test unless slow tests are on; `why` says what takes
    /// the time, so a skipped test's line in the log explains itself.
    static func require(_ why: String) throws {
        guard enabled else {
            throw XCTSkip("slow in a debug build (\(why)): set \(variable)=1 to run it; CI does")
        }
    }
}
