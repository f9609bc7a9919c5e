import ToolSupport

/// How `Stress --explore` picks the schedules it runs.
enum ExplorationStrategyKind: String, CaseIterable, Sendable {
    /// At every step, a random runnable thread (seeded): uniform in half
    /// the schedules, weighted by a per-thread random weight in the other
    /// half (see `RandomStrategy`).
    case random
    /// Probabilistic concurrency testing (Burckhardt et al., 2010): a fresh
    /// random priority for every thread and handed-off block when it starts,
    /// the highest runnable one runs, and `depth - 1` random steps among
    /// those with more than one runnable thread lower the running thread's
    /// priority (seeded).
    case pct
    /// Every schedule with at most `preemptionBound` preemptions, depth first
    /// (stops early when the space is exhausted).
    case exhaustive
}

/// A source of schedules: told when each starts and ends, asked at every step.
protocol ExplorationStrategy: ScheduleChooser {
    /// Prepares the next schedule; `false` when there is nothing left to explore.
    mutating func beginSchedule() -> Bool
    /// The schedule just run took `steps` steps.
    mutating func endSchedule(steps: Int)
    /// Whether the preemption bound left schedules out (exhaustive only).
    var boundLeftSchedulesOut: Bool { get }
}

extension ExplorationStrategy {
    var boundLeftSchedulesOut: Bool { false }
}

/// The choice that preempts nobody: the thread that ran last, while it can,
/// else the lowest-numbered runnable one.
func nonPreemptiveChoice(among enabled: [Int], previous: Int?) -> Int {
    if let previous, enabled.contains(previous) {
        return previous
    }
    return enabled[0]
}

/// Seeded random choice at every step. Every other schedule (at random)
/// is uniform; the others give each thread a random weight, drawn afresh for
/// each party and each handed-off block, heavily skewed towards small
/// weights (the cube of a uniform draw), and pick among the runnable threads
/// in proportion to it. So some schedules let one thread run far ahead of
/// another (every element delivered before the cancel), which uniform
/// choices almost never do, while half stay uniform.
struct RandomStrategy: ExplorationStrategy {
    private var generator: SeededGenerator
    /// Weights by thread for this schedule; empty: uniform.
    private var weights: [Double] = []
    private var biased = false

    init(seed: UInt64) {
        generator = SeededGenerator(seed: seed)
    }

    mutating func beginSchedule() -> Bool {
        biased = generator.next() % 2 == 1
        weights = []
        return true
    }

    mutating func threadStarted(_ thread: Int) {
        guard biased else { return }
        if weights.count <= thread {
            weights += repeatElement(1, count: thread + 1 - weights.count)
        }
        let uniform = Double(generator.next() >> 11) / Double(1 << 53)
        weights[thread] = max(uniform * uniform * uniform, 1e-4)
    }

    mutating func choose(among enabled: [Int], previous: Int?) -> Int {
        guard biased, enabled.count > 1 else {
            return enabled[Int(generator.next() % UInt64(enabled.count))]
        }
        let total = enabled.reduce(0) { $0 + weight(of: $1) }
        var point = Double(generator.next() >> 11) / Double(1 << 53) * total
        for thread in enabled {
            point -= weight(of: thread)
            if point < 0 { return thread }
        }
        return enabled[enabled.count - 1]
    }

    private func weight(of thread: Int) -> Double {
        thread < weights.count ? weights[thread] : 1
    }

    mutating func endSchedule(steps: Int) {}
}

/// PCT: with `n` threads, a schedule of at most `k` steps at which more than
/// one thread could run, and a bug of depth `d`, each schedule finds the bug
/// with probability at least 1/(n·k^(d-1)). As the bound requires, every
/// thread gets a fresh random priority when it starts (each party at the
/// start, each handed-off block when a worker takes it, never the worker's
/// earlier, perhaps lowered, priority), and the `d - 1` change points are
/// drawn among, and counted at, steps where more than one thread could run
/// (a step with one runnable thread is no choice, and a change point there
/// would be wasted).
struct PCTStrategy: ExplorationStrategy {
    let threads: Int
    let depth: Int
    private var generator: SeededGenerator
    /// Priorities by thread; higher runs first. Fresh ones are in
    /// `depth ..< depth + 1` (random); the one lowered at the i-th change
    /// point is `depth - 1 - i` (below every fresh one).
    private var priorities: [Double] = []
    /// Choice steps (1-based, counting only steps with more than one
    /// runnable thread) at which the running thread's priority drops.
    private var changePoints: [Int] = []
    /// Choice steps so far in this schedule.
    private var choiceSteps = 0
    /// The most choice steps a schedule took: the range change points are
    /// drawn from (32 until the first schedule has ended).
    private var estimatedChoiceSteps = 32
    private var measuredChoiceSteps = false
    /// Change points drawn, over every schedule.
    private(set) var changePointsDrawn = 0
    /// Change points reached (a choice step at which one lowered a priority), over every schedule.
    private(set) var changePointsReached = 0
    /// Steps with more than one runnable thread, over every schedule.
    private(set) var totalChoiceSteps = 0

    init(threads: Int, depth: Int, seed: UInt64) {
        precondition(depth >= 1, "PCTStrategy(depth:) must be at least 1")
        self.threads = threads
        self.depth = depth
        generator = SeededGenerator(seed: seed)
    }

    private mutating func freshPriority() -> Double {
        Double(depth) + Double(generator.next() >> 11) / Double(1 << 53)
    }

    mutating func beginSchedule() -> Bool {
        priorities = (0..<threads).map { _ in 0 }
        for thread in 0..<threads {
            priorities[thread] = freshPriority()
        }
        changePoints = (0..<(depth - 1)).map { _ in 1 + Int(generator.next() % UInt64(estimatedChoiceSteps)) }
        changePointsDrawn += changePoints.count
        choiceSteps = 0
        return true
    }

    mutating func threadStarted(_ thread: Int) {
        guard thread < priorities.count else { return }
        priorities[thread] = freshPriority()
    }

    mutating func choose(among enabled: [Int], previous: Int?) -> Int {
        var chosen = highest(among: enabled)
        guard enabled.count > 1 else { return chosen }
        choiceSteps += 1
        totalChoiceSteps += 1
        for (index, point) in changePoints.enumerated() where point == choiceSteps {
            priorities[chosen] = Double(depth - 1 - index)
            changePointsReached += 1
            chosen = highest(among: enabled)
        }
        return chosen
    }

    private func highest(among enabled: [Int]) -> Int {
        enabled.max { priorities[$0] < priorities[$1] }.unsafelyUnwrapped
    }

    mutating func endSchedule(steps: Int) {
        // The first schedule replaces the initial guess, so that a scenario
        // with a handful of choices does not draw most change points past
        // its end; later ones only widen the range.
        estimatedChoiceSteps = measuredChoiceSteps ? max(estimatedChoiceSteps, choiceSteps) : max(choiceSteps, 1)
        measuredChoiceSteps = true
    }
}

/// Depth-first search over the choices, with at most `preemptionBound`
/// preemptions per schedule (a preemption: switching away from a thread
/// that could have gone on). Stateless: each schedule replays the choices of
/// the previous one up to the last choice with an untried alternative.
struct ExhaustiveStrategy: ExplorationStrategy {
    let preemptionBound: Int

    private struct Frame {
        /// The alternatives, the non-preemptive one first.
        let order: [Int]
        /// Whether the thread that ran before could have gone on.
        let previousEnabled: Int?
        /// Preemptions on the path before this choice.
        let preemptionsBefore: Int
        var position: Int

        func cost(_ position: Int) -> Int {
            if let previousEnabled, order[position] != previousEnabled {
                return 1
            }
            return 0
        }
    }

    private var trail: [Frame] = []
    private var cursor = 0
    private var started = false
    private var exhausted = false
    /// Whether a schedule ever made choices differently from its replayed
    /// prefix (the scenario is not deterministic under the controller).
    private(set) var diverged = false
    /// The first divergence: its step and the runnable sets.
    private(set) var divergence: ReplayDivergence?
    private(set) var boundLeftSchedulesOut = false

    static func describe(_ threads: [Int]) -> String {
        "{" + threads.map { String(Schedule.letter($0)) }.joined(separator: ", ") + "}"
    }

    init(preemptionBound: Int) {
        precondition(preemptionBound >= 0, "ExhaustiveStrategy(preemptionBound:) must not be negative")
        self.preemptionBound = preemptionBound
    }

    /// Whether every schedule within the bound has been run.
    var isExhausted: Bool { exhausted }

    mutating func beginSchedule() -> Bool {
        cursor = 0
        if !started {
            started = true
            return true
        }
        return !exhausted
    }

    mutating func choose(among enabled: [Int], previous: Int?) -> Int {
        defer { cursor += 1 }
        if cursor < trail.count {
            let frame = trail[cursor]
            let chosen = frame.order[frame.position]
            if frame.order.sorted() == enabled {
                return chosen
            }
            // Not deterministic: the replayed prefix found other threads
            // runnable than the schedule it replays. Drop the rest of the
            // recorded path; the search can no longer claim completeness.
            diverged = true
            if divergence == nil {
                divergence = ReplayDivergence(
                    step: cursor, expected: "runnable " + Self.describe(frame.order.sorted()),
                    found: "runnable " + Self.describe(enabled))
            }
            trail.removeSubrange(cursor...)
        }
        let previousEnabled = previous.flatMap { enabled.contains($0) ? $0 : nil }
        var order = enabled
        if let previousEnabled, let index = order.firstIndex(of: previousEnabled) {
            order.remove(at: index)
            order.insert(previousEnabled, at: 0)
        }
        let before = trail.last.map { $0.preemptionsBefore + $0.cost($0.position) } ?? 0
        trail.append(Frame(order: order, previousEnabled: previousEnabled, preemptionsBefore: before, position: 0))
        return order[0]
    }

    mutating func endSchedule(steps: Int) {
        if trail.count > steps {
            trail.removeSubrange(steps...)
        }
        while var frame = trail.popLast() {
            var next = frame.position + 1
            while next < frame.order.count {
                if frame.preemptionsBefore + frame.cost(next) <= preemptionBound {
                    break
                }
                boundLeftSchedulesOut = true
                next += 1
            }
            if next < frame.order.count {
                frame.position = next
                trail.append(frame)
                return
            }
        }
        exhausted = true
    }
}

/// Where a replay left its recorded schedule: the step (0-based) and what
/// was recorded there against what this run found.
struct ReplayDivergence: Equatable, Sendable, CustomStringConvertible {
    /// The step, counted from 0.
    let step: Int
    /// What the schedule recorded (`runnable {a, b}, then a`).
    let expected: String
    /// What this run found (`runnable {a}`).
    let found: String

    /// `diverged at step N: expected …, found …` (N counted from 1).
    var description: String {
        "diverged at step \(step + 1): expected \(expected), found \(found)"
    }
}

/// Follows a recorded schedule, then runs without preemption. With the
/// recorded runnable sets, a step whose runnable set differs is a
/// divergence even when the recorded thread could run.
struct ReplayStrategy: ExplorationStrategy {
    let choices: [Int]
    /// The runnable set of each recorded step, when recorded.
    let runnable: [UInt32]?
    /// Whether a recorded choice that cannot run is replaced by the
    /// non-preemptive one (shrinking) rather than recorded as a divergence.
    let lenient: Bool
    private var step = 0
    /// The first step that left the recorded schedule, if any.
    private(set) var divergence: ReplayDivergence?

    init(_ choices: [Int], runnable: [UInt32]? = nil, lenient: Bool = false) {
        self.choices = choices
        self.runnable = runnable
        self.lenient = lenient
    }

    mutating func beginSchedule() -> Bool {
        step = 0
        divergence = nil
        return true
    }

    mutating func choose(among enabled: [Int], previous: Int?) -> Int {
        defer { step += 1 }
        if step < choices.count {
            let recorded = choices[step]
            if divergence == nil && !lenient {
                let found = runnableMask(enabled)
                if let runnable, step < runnable.count, runnable[step] != found {
                    divergence = ReplayDivergence(
                        step: step,
                        expected: "runnable \(Schedule.describeSet(runnable[step])), then \(Schedule.letter(recorded))",
                        found: "runnable \(Schedule.describeSet(found))")
                } else if !enabled.contains(recorded) {
                    divergence = ReplayDivergence(
                        step: step, expected: "thread \(Schedule.letter(recorded)) to run",
                        found: "runnable \(Schedule.describeSet(found)) (it had returned or was waiting)")
                }
            }
            if divergence == nil && enabled.contains(recorded) {
                return recorded
            }
            if lenient && enabled.contains(recorded) {
                return recorded
            }
        }
        return nonPreemptiveChoice(among: enabled, previous: previous)
    }

    mutating func endSchedule(steps: Int) {}
}

/// The bit mask of `threads` (bit `t`: thread `t`).
func runnableMask(_ threads: [Int]) -> UInt32 {
    threads.reduce(0) { $0 | (1 << UInt32($1)) }
}

/// Records the runnable set of every step while `inner` chooses.
struct RecordingChooser<Inner: ScheduleChooser>: ScheduleChooser {
    var inner: Inner
    private(set) var runnable: [UInt32] = []

    init(_ inner: Inner) {
        self.inner = inner
    }

    mutating func choose(among enabled: [Int], previous: Int?) -> Int {
        runnable.append(runnableMask(enabled))
        return inner.choose(among: enabled, previous: previous)
    }

    mutating func threadStarted(_ thread: Int) {
        inner.threadStarted(thread)
    }
}
