import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Shows what runs and what is left. On a terminal one line is rewritten in
/// place; otherwise (CI logs, pipes) one line is printed per benchmark.
public final class ProgressReporter: @unchecked Sendable {
    public enum Style: Sendable {
        case terminal, lines, silent
    }

    private let style: Style
    private var totalEstimate: Double = 0
    private var doneEstimate: Double = 0
    private var startTime: UInt64 = 0
    private var currentBenchmark = ""
    private var lineIsOpen = false
    private var notes = Set<String>()

    public init(style: Style) {
        self.style = style
    }

    /// `.terminal` when standard output is a terminal, else `.lines`.
    public static func automatic() -> ProgressReporter {
        ProgressReporter(style: isatty(STDOUT_FILENO) != 0 ? .terminal : .lines)
    }

    func begin(totalEstimatedSeconds: Double) {
        totalEstimate = max(totalEstimatedSeconds, 0.001)
        startTime = MeasureContext.now()
    }

    /// Seconds left, scaling the plan's estimate by how fast the run has gone so far.
    func remainingSeconds() -> Double {
        let elapsed = Double(MeasureContext.now() - startTime) / 1e9
        guard doneEstimate > 0 else { return totalEstimate }
        let speed = elapsed / doneEstimate
        return max(0, (totalEstimate - doneEstimate) * speed)
    }

    func willMeasure(_ plan: MeasurementPlan, repetition: Int, of repetitions: Int, variants: Int) {
        let remaining = Self.format(seconds: remainingSeconds())
        switch style {
        case .silent:
            return
        case .terminal:
            let step = repetition == 0 ? "warm-up" : "repetition \(repetition)/\(repetitions)"
            let text = "[\(plan.benchmark)] \(plan.variant) \(plan.params)  \(step)  ~\(remaining) left"
            let width = 118
            let clipped = text.count > width ? String(text.prefix(width)) : text.padding(toLength: width, withPad: " ", startingAt: 0)
            write("\r" + clipped)
            lineIsOpen = true
        case .lines:
            if plan.benchmark != currentBenchmark {
                currentBenchmark = plan.benchmark
                let sets = variants == 1 ? "1 variant" : "\(variants) variant/parameter sets"
                write("[\(plan.benchmark)] \(sets) × \(repetitions) repetitions, ~\(remaining) left in the run\n")
            }
        }
    }

    /// Like `willMeasure`, for a repetition of the allocation-counting pass.
    func willCount(_ plan: MeasurementPlan, repetition: Int, of repetitions: Int) {
        let remaining = Self.format(seconds: remainingSeconds())
        switch style {
        case .silent:
            return
        case .terminal:
            let text = "[\(plan.benchmark)] \(plan.variant)  counting allocations \(repetition)/\(repetitions)  ~\(remaining) left"
            let width = 118
            let clipped = text.count > width ? String(text.prefix(width)) : text.padding(toLength: width, withPad: " ", startingAt: 0)
            write("\r" + clipped)
            lineIsOpen = true
        case .lines:
            let key = "count " + plan.benchmark
            if key != currentBenchmark {
                currentBenchmark = key
                write("[\(plan.benchmark)] counting allocations × \(repetitions) repetitions, ~\(remaining) left\n")
            }
        }
    }

    func didMeasure(estimatedSeconds: Double) {
        doneEstimate += estimatedSeconds
    }

    /// Prints `message` once per run, above the progress line.
    public func note(_ message: String) {
        guard notes.insert(message).inserted, style != .silent else { return }
        closeLine()
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }

    func finish() {
        guard style != .silent else { return }
        closeLine()
        let elapsed = Double(MeasureContext.now() - startTime) / 1e9
        write("measured in \(Self.format(seconds: elapsed))\n")
    }

    private func closeLine() {
        if lineIsOpen {
            write("\r" + String(repeating: " ", count: 118) + "\r")
            lineIsOpen = false
        }
    }

    private func write(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    static func format(seconds: Double) -> String {
        let whole = Int(seconds.rounded())
        return whole >= 60 ? "\(whole / 60)m\(String(format: "%02d", whole % 60))s" : "\(whole)s"
    }
}
