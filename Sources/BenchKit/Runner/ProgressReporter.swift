import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// How far the measurement in progress has got, in the benchmark's own units
/// (ticks, samples, lifecycles). The measuring code only stores into atomics
/// (`begin`, `advance`): it never prints, never locks, never allocates, so
/// reporting does not disturb what is timed. The reporter's timer thread reads it.
package final class MeasurementProgress: Sendable {
    private let doneSteps = Atomic<Int>(0)
    private let totalSteps = Atomic<Int>(0)
    private let unitStorage = Mutex<String>("")

    init() {}

    /// Starts counting `total` steps called `unit` (plural, as shown: "ticks").
    /// Call before the timed region.
    func begin(total: Int, unit: String) {
        unitStorage.withLock { $0 = unit }
        doneSteps.store(0, ordering: .relaxed)
        totalSteps.store(max(total, 0), ordering: .relaxed)
    }

    /// One more step done: a relaxed atomic add, safe inside a timed region.
    @inline(__always)
    func advance(by steps: Int = 1) {
        doneSteps.add(steps, ordering: .relaxed)
    }

    /// Forgets the previous measurement's counts.
    func reset() {
        totalSteps.store(0, ordering: .relaxed)
        doneSteps.store(0, ordering: .relaxed)
    }

    /// Steps done of the total and their unit; `nil` when nothing was begun.
    var snapshot: (done: Int, total: Int, unit: String)? {
        let total = totalSteps.load(ordering: .relaxed)
        guard total > 0 else { return nil }
        return (min(doneSteps.load(ordering: .relaxed), total), total, unitStorage.withLock { $0 })
    }
}

/// Shows what runs and what is left.
///
/// On a terminal one line is rewritten in place: the benchmark, variant and
/// parameters, the repetition (k of n), the progress inside the measurement
/// when the benchmark reports it (`MeasurementProgress`: ticks, samples,
/// lifecycles) with a bar, and the time left in the run. A timer thread
/// redraws it twice a second, so it moves during long measurements; it only
/// reads atomics and the reporter's state, and the measuring thread never
/// writes to the terminal inside a timed region (`willMeasure` prints before
/// it, between measurements). The timer thread does not draw while
/// allocations are counted (counts cover every thread).
///
/// Otherwise (CI logs, pipes) output stays sparse: one line per benchmark and
/// one per repetition round.
package final class ProgressReporter: @unchecked Sendable {
    enum Style: Sendable {
        case terminal, lines, silent
    }

    /// What is being measured now, for the status line.
    struct Step: Equatable {
        /// The measurement's name as the status line starts with it:
        /// `[benchmark] variant params` (``name(of:)``).
        var name: String
        /// "warm-up", "repetition 2/5", "counting allocations 1/3".
        var phase: String
        /// Seconds the measurement is expected to take.
        var estimatedSeconds: Double
        /// When it started (monotonic nanoseconds).
        var startedAt: UInt64
        /// Whether the timer thread may redraw during it. Not while counting
        /// allocations: counts cover every thread, and drawing allocates.
        var redraws = true
        /// The stage whose cost it counts toward; nil: none.
        var stage: Stage?

        /// The name of a step that measures `plan`; without params when it has none.
        static func name(of plan: MeasurementPlan) -> String {
            let name = "[\(plan.benchmark)] \(plan.variant)"
            return plan.params.isEmpty ? name : "\(name) \(plan.params)"
        }
    }

    /// What one stage (a benchmark's timing, or its counting pass) was
    /// planned to cost and what its finished measurements cost.
    struct StageCost: Equatable {
        /// Estimated seconds of the whole stage.
        var planned: Double = 0
        /// What ``planned`` was at the start of the run: for a benchmark
        /// whose repetitions are chosen adaptively, the rounds it took in the
        /// last such run (`PriorRounds`), or else its fewest.
        var initiallyPlanned: Double = 0
        /// Estimated seconds of its finished measurements.
        var estimatedDone: Double = 0
        /// Real seconds its finished measurements took.
        var actualDone: Double = 0
        /// What the stage cost against its plan in the recent recorded runs
        /// of the suite (``ProgressHistory``): the ratio its time left is taken
        /// at (times this machine's pace) until its own measurements give one.
        var priorRatio: Double?
    }

    struct State {
        var totalEstimate: Double = 0
        var doneEstimate: Double = 0
        /// Per stage, when the run gave them (``begin(stageEstimates:)``):
        /// then the time left is estimated stage by stage.
        var stages: [Stage: StageCost] = [:]
        /// Stages whose plans wait for timers (``MeasurementPlan/waitsForTimers``):
        /// taken at their estimate until measured, and left out of the
        /// ratio other stages of their phase borrow.
        var waitingForTimers: Set<Stage> = []
        /// Seconds of work the run will do after this reporter's stages
        /// (``reserveAfterStages(seconds:)``): added to the time left as they are.
        var secondsAfterStages: Double = 0
        var startTime: UInt64 = 0
        var step: Step?
        var currentBenchmark = ""
        var currentRound = ""
        var lineIsOpen = false
        var notes = Set<String>()
        var finished = false
    }

    private let style: Style
    private let state = Mutex(State())
    /// The progress the running measurement reports; the runner hands it to the workload.
    let measurement = MeasurementProgress()
    private let redrawSeconds: Double
    private var ticker: Thread?
    static let width = 118

    init(style: Style, redrawSeconds: Double = 0.5) {
        self.style = style
        self.redrawSeconds = redrawSeconds
    }

    /// `.terminal` when standard output is a terminal, else `.lines`.
    package static func automatic() -> ProgressReporter {
        ProgressReporter(style: isatty(STDOUT_FILENO) != 0 ? .terminal : .lines)
    }

    /// Adds `seconds` to every time left this reporter prints: work the run
    /// has decided to do after the stages it reports (a benchmark timed
    /// again once the suite is done, at what its first timing took), which
    /// no stage's plan holds. Reserve before ``begin(stageEstimates:waitingForTimers:history:)``
    /// or after; it is not reset.
    package func reserveAfterStages(seconds: Double) {
        guard seconds.isFinite, seconds > 0 else { return }
        state.withLock { $0.secondsAfterStages += seconds }
    }

    func begin(totalEstimatedSeconds: Double) {
        begin(stageEstimates: [:], total: totalEstimatedSeconds)
    }

    /// Starts the run with each stage's estimated seconds; `waitingForTimers`:
    /// the stages whose plans wait for timers (see ``State/waitingForTimers``).
    /// `history`: what each stage cost against its plan in the recent
    /// recorded runs of the suite, if any.
    func begin(stageEstimates: [Stage: Double], waitingForTimers: Set<Stage> = [], history: ProgressHistory? = nil) {
        begin(stageEstimates: stageEstimates, total: stageEstimates.values.reduce(0, +))
        state.withLock { state in
            state.waitingForTimers = waitingForTimers
            for key in state.stages.keys {
                state.stages[key]?.priorRatio = history?.ratio(of: key)
            }
        }
    }

    /// What each stage measured in this process cost against its plan, and
    /// for `countedElsewhere` seconds, the counting stages this process
    /// planned but a child measured: ``ProgressHistory``'s record of the run.
    package func history(countedElsewhere: Double?) -> ProgressHistory {
        state.withLock { Self.history(of: $0, countedElsewhere: countedElsewhere) }
    }

    /// ``history(countedElsewhere:)`` of `state`.
    static func history(of state: State, countedElsewhere: Double?) -> ProgressHistory {
        var ratios: [Stage: Double] = [:]
        for (key, cost) in state.stages where cost.estimatedDone > 0 && cost.actualDone > 0 {
            ratios[key] = cost.actualDone / cost.estimatedDone
        }
        let counting = state.stages.filter { $0.key.phase == .counting && $0.value.estimatedDone == 0 }
        let planned = counting.values.map(\.planned).reduce(0, +)
        if let countedElsewhere, countedElsewhere > 0, planned > 0 {
            for key in counting.keys { ratios[key] = countedElsewhere / planned }
        }
        return ProgressHistory(ratios: ratios)
    }

    /// What a measurement does: each kind costs differently against its
    /// plan (a warm-up also pays a session's set-up, and counting runs under
    /// the counting allocator), so each is a stage of its own.
    enum Phase: String, Hashable, Sendable, CaseIterable {
        case warmUp = "warm-up", timing, counting
    }

    /// The measurements whose cost is learnt together: one benchmark's
    /// warm-ups, timed repetitions or counting pass.
    struct Stage: Hashable, Sendable {
        var benchmark: String
        var phase: Phase
    }

    private func begin(stageEstimates: [Stage: Double], total: Double) {
        state.withLock {
            $0.totalEstimate = max(total, 0.001)
            $0.stages = stageEstimates.mapValues { StageCost(planned: $0, initiallyPlanned: $0) }
            $0.startTime = MeasureContext.now()
        }
        if style == .terminal {
            let thread = Thread { [weak self] in
                while let self, self.redrawUntilFinished() {}
            }
            thread.name = "BenchRunner progress"
            thread.start()
            ticker = thread
        }
    }

    /// Sleeps one redraw interval, then redraws; `false` once the run finished.
    private func redrawUntilFinished() -> Bool {
        usleep(UInt32(redrawSeconds * 1e6))
        return state.withLock { state in
            if state.finished { return false }
            if state.lineIsOpen, state.step?.redraws == true { draw(&state, now: MeasureContext.now()) }
            return true
        }
    }

    /// Seconds left, scaling the plans' estimates by how fast the run has gone so far.
    func remainingSeconds() -> Double {
        let now = MeasureContext.now()
        return state.withLock { Self.remainingByStage(of: $0, now: now, inner: measurement.snapshot).seconds }
    }

    /// The time left, stage by stage: each stage's estimated seconds not
    /// yet done, scaled by what its own finished measurements cost against
    /// their estimate. A stage none of whose measurements has finished is
    /// scaled by the ratio so far of the stages of its phase (warm-ups by
    /// warm-ups, repetitions by repetitions: a warm-up also pays a session's
    /// set-up, so its ratio would overstate a repetition's many times), or
    /// taken as estimated when none has one: a guess, which `isGuess` says.
    /// A stage the recorded runs of the suite hold (``StageCost/priorRatio``)
    /// is taken at their ratio until measured, no guess, times this
    /// machine's pace against theirs (``pace(of:)``, from the measured
    /// stages that have a recorded ratio).
    /// A stage that waits for timers is taken as estimated until measured
    /// (not a guess: its ticks take what they take), and its own ratio is
    /// lent to no other stage. Without
    /// per-stage plans, the run-wide `remaining(of:now:inner:)`.
    static func remainingByStage(of state: State, now: UInt64, inner: (done: Int, total: Int, unit: String)?)
        -> (seconds: Double, isGuess: Bool)
    {
        guard !state.stages.isEmpty else {
            return (remaining(of: state, now: now, inner: inner) + state.secondsAfterStages, state.doneEstimate == 0)
        }
        var phaseCosts: [Phase: (estimated: Double, actual: Double)] = [:]
        var stagePaces: [Double] = []
        for (key, stage) in state.stages
        where stage.estimatedDone > 0 && stage.actualDone > 0 && !state.waitingForTimers.contains(key) {
            phaseCosts[key.phase, default: (0, 0)].estimated += stage.estimatedDone
            phaseCosts[key.phase, default: (0, 0)].actual += stage.actualDone
            if let prior = stage.priorRatio, prior > 0 {
                stagePaces.append(stage.actualDone / (stage.estimatedDone * prior))
            }
        }
        let pace = Self.pace(of: stagePaces)
        var seconds = state.secondsAfterStages
        var isGuess = false
        for (key, stage) in state.stages {
            var done = stage.estimatedDone
            if let step = state.step, step.stage == key, step.estimatedSeconds > 0 {
                done += step.estimatedSeconds * runningFraction(of: step, now: now, inner: inner)
            }
            let left = max(stage.planned - done, 0)
            guard left > 0 else { continue }
            if stage.estimatedDone > 0 && stage.actualDone > 0 {
                seconds += left * stage.actualDone / stage.estimatedDone
            } else if let prior = stage.priorRatio {
                // Ticks take what they take, on any machine.
                seconds += left * prior * (state.waitingForTimers.contains(key) ? 1 : pace)
            } else if state.waitingForTimers.contains(key) {
                seconds += left
            } else {
                isGuess = true
                let phase = phaseCosts[key.phase]
                seconds += left * (phase.map { $0.actual / $0.estimated } ?? 1)
            }
        }
        return (seconds, isGuess)
    }

    /// This machine's pace against the recorded run's, from the stages
    /// measured so far, each as its real seconds over what its record said
    /// (`stagePaces`): their median, as a factor on a log scale, shrunk
    /// toward 1 by `n / (n + 1)` for `n` stages. A stage's own ratio also
    /// moves between runs of one machine (an adaptive benchmark takes more
    /// rounds, an episode of the machine's slow levels takes one stage): a
    /// median of stages, not their summed seconds, keeps one long stage
    /// that overran from setting the pace of every stage to come, and the
    /// shrinking keeps the first stage or two from setting it alone. A
    /// machine twice as slow as the record's reaches 2 as its stages are
    /// measured (√2 after one, 2^(3/4) after three). 1 with none.
    static func pace(of stagePaces: [Double]) -> Double {
        let logs = stagePaces.filter { $0.isFinite && $0 > 0 }.map { log($0) }.sorted()
        guard !logs.isEmpty else { return 1 }
        let middle = logs.count / 2
        let median = logs.count % 2 == 1 ? logs[middle] : (logs[middle - 1] + logs[middle]) / 2
        return exp(median * Double(logs.count) / Double(logs.count + 1))
    }

    /// `~4m11s left`, or `~4m11s left (guess)` while a stage to come has
    /// no measured cost yet.
    static func formatRemaining(_ remaining: (seconds: Double, isGuess: Bool)) -> String {
        "~\(format(seconds: remaining.seconds)) left" + (remaining.isGuess ? " (guess)" : "")
    }

    /// The estimate: the run's estimated seconds not yet done, scaled by the
    /// ratio of elapsed time to estimated seconds done so far. The running
    /// measurement counts as done in proportion to its reported steps, or
    /// else to its elapsed time (at most 90 % of it, as it has not ended).
    static func remaining(of state: State, now: UInt64, inner: (done: Int, total: Int, unit: String)?) -> Double {
        let elapsed = Double(now &- state.startTime) / 1e9
        var done = state.doneEstimate
        if let step = state.step, step.estimatedSeconds > 0 {
            done += step.estimatedSeconds * runningFraction(of: step, now: now, inner: inner)
        }
        return estimate(total: state.totalEstimate, done: done, elapsed: elapsed)
    }

    /// How much of the running measurement counts as done: its reported
    /// steps, or else its elapsed time against its estimate (at most 90 %,
    /// as it has not ended).
    static func runningFraction(of step: Step, now: UInt64, inner: (done: Int, total: Int, unit: String)?) -> Double {
        if let inner, inner.total > 0 {
            return Double(inner.done) / Double(inner.total)
        }
        return min(Double(now &- step.startedAt) / 1e9 / step.estimatedSeconds, 0.9)
    }

    /// Seconds left when `done` of `total` estimated seconds took `elapsed` real seconds.
    static func estimate(total: Double, done: Double, elapsed: Double) -> Double {
        guard done > 0, elapsed > 0 else { return max(total - done, 0) }
        return max(0, (total - done) * (elapsed / done))
    }

    /// How many timing repetitions a benchmark takes: a fixed count, or
    /// (``most`` given) from ``fewest`` up to ``most`` as its series need.
    struct RepetitionCount: Equatable {
        var fewest: Int
        var most: Int?

        /// `5`, or `5-30` for a count chosen as the series need.
        var range: String {
            most.map { "\(fewest)-\($0)" } ?? "\(fewest)"
        }
    }

    /// A fixed count of repetitions (`repetition k/n`).
    func willMeasure(_ plan: MeasurementPlan, repetition: Int, of repetitions: Int, variants: Int) {
        willMeasure(plan, repetition: repetition, of: RepetitionCount(fewest: repetitions), variants: variants)
    }

    /// A timed repetition (`repetition` from 1) or, for 0, the warm-up of `plan`.
    func willMeasure(_ plan: MeasurementPlan, repetition: Int, of count: RepetitionCount, variants: Int) {
        let repetitions = count.range
        let phase = repetition == 0 ? "warm-up" : "repetition \(repetition)/\(repetitions)"
        let estimate = repetition == 0 ? plan.warmUpEstimatedSeconds : plan.estimatedSeconds
        start(
            plan, phase: phase, estimatedSeconds: estimate, redraws: true,
            stage: Stage(plan, repetition == 0 ? .warmUp : .timing)
        ) { state, remaining in
            guard plan.benchmark != state.currentBenchmark || "\(repetition)" != state.currentRound else { return nil }
            var text = ""
            if plan.benchmark != state.currentBenchmark {
                state.currentBenchmark = plan.benchmark
                let sets = variants == 1 ? "1 variant" : "\(variants) variant/parameter sets"
                let until = count.most == nil ? "" : " (until compare's interval is narrow enough, or the budget)"
                text += "[\(plan.benchmark)] \(sets) × \(repetitions) repetitions\(until), \(remaining) in the run\n"
            }
            state.currentRound = "\(repetition)"
            text += "  \(plan.benchmark) \(phase), \(remaining)\n"
            return text
        }
    }

    /// Like `willMeasure`, for a repetition of the allocation-counting pass.
    func willCount(_ plan: MeasurementPlan, repetition: Int, of repetitions: Int) {
        start(
            plan, phase: "counting allocations \(repetition)/\(repetitions)",
            estimatedSeconds: plan.countingEstimatedSeconds, redraws: false,
            stage: Stage(plan, .counting)
        ) { state, remaining in
            let key = "count " + plan.benchmark
            guard key != state.currentBenchmark else { return nil }
            state.currentBenchmark = key
            return "[\(plan.benchmark)] counting allocations × \(repetitions) repetitions, \(remaining)\n"
        }
    }

    /// Records the new step; draws it on a terminal, or prints what
    /// `lines` returns (given the state and the time left) otherwise.
    private func start(
        _ plan: MeasurementPlan, phase: String, estimatedSeconds: Double, redraws: Bool, stage: Stage,
        lines: (inout State, String) -> String?
    ) {
        measurement.reset()
        guard style != .silent else { return }
        let now = MeasureContext.now()
        state.withLock { state in
            state.step = Step(
                name: Step.name(of: plan), phase: phase, estimatedSeconds: estimatedSeconds, startedAt: now,
                redraws: redraws, stage: stage)
            switch style {
            case .silent:
                return
            case .terminal:
                state.lineIsOpen = true
                draw(&state, now: now)
            case .lines:
                let remaining = Self.formatRemaining(Self.remainingByStage(of: state, now: now, inner: nil))
                if let text = lines(&state, remaining) { write(text) }
            }
        }
    }

    private func draw(_ state: inout State, now: UInt64) {
        guard let step = state.step else { return }
        let inner = measurement.snapshot
        let remaining = Self.remainingByStage(of: state, now: now, inner: inner)
        write("\r" + Self.statusLine(step: step, inner: inner, remainingSeconds: remaining.seconds, isGuess: remaining.isGuess))
    }

    /// The terminal line, padded to `width` columns. When it is too long the
    /// name of the step (`[benchmark] variant params`) is shortened, ending in
    /// `…`; never the phase, the progress and the time left, unless they
    /// alone exceed the width.
    static func statusLine(
        step: Step, inner: (done: Int, total: Int, unit: String)?, remainingSeconds: Double, isGuess: Bool = false,
        width: Int = width
    ) -> String {
        var head = step.name
        var tail = "  \(step.phase)"
        if let inner {
            tail += "  \(bar(done: inner.done, total: inner.total)) \(inner.done)/\(inner.total) \(inner.unit)"
        }
        tail += "  " + formatRemaining((remainingSeconds, isGuess))
        if head.count + tail.count > width {
            let room = width - tail.count
            head = room > 1 ? String(head.prefix(room - 1)) + "…" : ""
        }
        let text = head + tail
        return text.count > width ? String(text.prefix(width)) : text.padding(toLength: width, withPad: " ", startingAt: 0)
    }

    /// A 20-cell bar, for example `[#####...............]` at a quarter.
    static func bar(done: Int, total: Int, cells: Int = 20) -> String {
        let filled = total > 0 ? min(cells, max(0, done * cells / total)) : 0
        return "[" + String(repeating: "#", count: filled) + String(repeating: ".", count: cells - filled) + "]"
    }

    func didMeasure(estimatedSeconds: Double) {
        let now = MeasureContext.now()
        state.withLock {
            $0.doneEstimate += estimatedSeconds
            if let step = $0.step, let stage = step.stage, $0.stages[stage] != nil {
                $0.stages[stage]?.estimatedDone += estimatedSeconds
                $0.stages[stage]?.actualDone += Double(now &- step.startedAt) / 1e9
            }
            $0.step = nil
        }
        measurement.reset()
    }

    /// The timing of `benchmark` takes at least `estimatedSeconds` (its
    /// plans' estimates): it takes another round beyond those planned.
    func extendTiming(of benchmark: String, toAtLeast estimatedSeconds: Double) {
        let stage = Stage(benchmark: benchmark, phase: .timing)
        state.withLock { state in
            guard let cost = state.stages[stage], cost.planned < estimatedSeconds else { return }
            state.totalEstimate += estimatedSeconds - cost.planned
            state.stages[stage]?.planned = estimatedSeconds
        }
    }

    /// The timing of `benchmark` is over, having taken `estimatedSeconds`
    /// (its plans' estimates): nothing of it is left.
    func finishTiming(of benchmark: String, estimatedSeconds: Double) {
        let stage = Stage(benchmark: benchmark, phase: .timing)
        state.withLock { state in
            guard let cost = state.stages[stage] else { return }
            state.totalEstimate += estimatedSeconds - cost.planned
            state.stages[stage]?.planned = estimatedSeconds
        }
    }

    /// Plans the timing stage of each of `benchmarks` not yet begun at `factor` times its initial
    /// plan: the adaptive benchmarks done so far took that many times their
    /// fewest rounds, so those to come are expected to as well. A stage
    /// keeps at least its initial plan (the fewest rounds always run).
    func scaleTimingPlans(of benchmarks: Set<String>, by factor: Double) {
        state.withLock { state in
            for (key, cost) in state.stages
            where key.phase == .timing && cost.estimatedDone == 0 && benchmarks.contains(key.benchmark) {
                let planned = cost.initiallyPlanned * max(factor, 1)
                state.totalEstimate += planned - cost.planned
                state.stages[key]?.planned = planned
            }
        }
    }

    /// Prints `message` once per run, above the progress line.
    package func note(_ message: String) {
        guard style != .silent else { return }
        state.withLock { state in
            guard state.notes.insert(message).inserted else { return }
            closeLine(&state)
            FileHandle.standardError.write(Data((message + "\n").utf8))
        }
    }

    /// Stops redrawing and clears the line, after a measurement failed.
    func abort() {
        state.withLock { state in
            state.finished = true
            closeLine(&state)
        }
    }

    func finish() {
        guard style != .silent else { return }
        let now = MeasureContext.now()
        state.withLock { state in
            state.finished = true
            closeLine(&state)
            let elapsed = Double(now &- state.startTime) / 1e9
            write("measured in \(Self.format(seconds: elapsed))\n")
        }
    }

    private func closeLine(_ state: inout State) {
        if state.lineIsOpen {
            write("\r" + String(repeating: " ", count: Self.width) + "\r")
            state.lineIsOpen = false
        }
    }

    private func write(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    /// A duration as the progress lines print it: `45s`, `1m05s`.
    package static func format(seconds: Double) -> String {
        let whole = Int(seconds.rounded())
        return whole >= 60 ? "\(whole / 60)m\(String(format: "%02d", whole % 60))s" : "\(whole)s"
    }
}

extension ProgressReporter.Stage {
    /// The stage `plan`'s measurement in `phase` counts toward.
    init(_ plan: MeasurementPlan, _ phase: ProgressReporter.Phase) {
        self.init(benchmark: plan.benchmark, phase: phase)
    }
}
