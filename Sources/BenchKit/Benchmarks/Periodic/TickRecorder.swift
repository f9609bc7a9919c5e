import Dispatch
import Foundation
import ToolSupport

/// Records when each tick of a periodic job ran against when it was due:
/// tick k is due at `start + k·period` on the monotonic clock.
final class TickRecorder: @unchecked Sendable {
    /// When tick 0 was due; ticks are due at `start + k·period`.
    private(set) var start: UInt64
    let period: UInt64
    let ticks: Int
    /// Lateness of each recorded tick in nanoseconds, by tick index (1-based).
    private(set) var lateness: [(tick: Int, nanoseconds: Int64)] = []
    private var calls = 0
    private var mergedFires = 0
    private let finished = DispatchSemaphore(value: 0)
    private var isFinished = false
    private let skippedSourceLock = NSLock()
    private var _skippedSource: (@Sendable () -> Int)?
    /// Reads how many ticks the job skipped so far, when it can tell; set by
    /// the job right after it starts, read by its ticks.
    var skippedSource: (@Sendable () -> Int)? {
        get { skippedSourceLock.withLock { _skippedSource } }
        set { skippedSourceLock.withLock { _skippedSource = newValue } }
    }

    /// Advanced once per recorded run, for the progress line.
    private let progress: MeasurementProgress?

    init(start: UInt64, periodNanoseconds: UInt64, ticks: Int, progress: MeasurementProgress? = nil) {
        self.start = start
        self.period = periodNanoseconds
        self.ticks = ticks
        self.progress = progress
        lateness.reserveCapacity(ticks)
        progress?.begin(total: ticks, unit: "ticks")
    }

    /// Restarts the schedule's origin at `now`. A job whose API takes a
    /// relative start calls this right before it schedules, so the time spent
    /// creating its scheduler is not counted as lateness of every tick. Call it
    /// before the first tick can run.
    func markStart(at now: UInt64 = MeasureContext.now()) {
        start = now
    }

    /// Records one run of the job that stands for `fires` due ticks (a dispatch
    /// timer reports merged fires; other jobs pass 1). Runs on the job's
    /// context; a periodic job's ticks never overlap, so no lock is needed.
    func tick(fires: Int = 1) {
        guard !isFinished else { return }
        let now = MeasureContext.now()
        calls += 1
        mergedFires += fires - 1
        let index = calls + mergedFires + (skippedSource?() ?? 0)
        let due = start &+ UInt64(index) &* period
        lateness.append((index, Int64(bitPattern: now &- due)))
        progress?.advance(by: fires)
        if index >= ticks {
            isFinished = true
            finished.signal()
        }
    }

    /// Waits until the last tick was recorded, at most `timeoutSeconds`
    /// (by default four times the run's length plus 5 s).
    func wait(variant: String, timeoutSeconds: Double? = nil) throws {
        let budget = timeoutSeconds ?? Double(ticks) * Double(period) / 1e9 * 4 + 5
        if finished.wait(timeout: .now() + budget) == .timedOut {
            throw BenchmarkFailure(
                "\(variant): \(ticks) ticks did not happen within \(NumberFormat.plain(budget)) s: "
                    + "does its scheduler run the actions it is given when they are due?")
        }
    }
}
