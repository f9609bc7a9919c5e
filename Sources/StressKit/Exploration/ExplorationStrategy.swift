/// How `Stress --explore` picks the schedules it runs.
public enum ExplorationStrategyKind: String, CaseIterable, Sendable {
    /// At every step, a uniformly random runnable thread (seeded).
    case random
    /// Probabilistic concurrency testing (Burckhardt et al., 2010): random
    /// thread priorities, the highest runnable one runs, and `depth - 1`
    /// random steps lower the running thread's priority (seeded).
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

/// Seeded uniform choice at every step.
struct RandomStrategy: ExplorationStrategy {
    private var generator: SeededGenerator

    init(seed: UInt64) {
        generator = SeededGenerator(seed: seed)
    }

    mutating func beginSchedule() -> Bool { true }

    mutating func choose(among enabled: [Int], previous: Int?) -> Int {
        enabled[Int(generator.next() % UInt64(enabled.count))]
    }

    mutating func endSchedule(steps: Int) {}
}

/// PCT: with `n` threads, a schedule of at most `k` steps and a bug of depth
/// `d`, each schedule finds the bug with probability at least 1/(n·k^(d-1)).
struct PCTStrategy: ExplorationStrategy {
    let threads: Int
    let depth: Int
    private var generator: SeededGenerator
    /// Priorities by thread; higher runs first. Initial ones are `depth...`,
    /// those lowered at the i-th change point are `depth - i` (below all initial ones).
    private var priorities: [Int] = []
    /// Steps (1-based) at which the running thread's priority drops, in order.
    private var changePoints: [Int] = []
    private var step = 0
    /// The longest schedule seen: the range the change points are drawn from.
    private var estimatedSteps = 32

    init(threads: Int, depth: Int, seed: UInt64) {
        precondition(depth >= 1, "PCTStrategy(depth:) must be at least 1")
        self.threads = threads
        self.depth = depth
        generator = SeededGenerator(seed: seed)
    }

    mutating func beginSchedule() -> Bool {
        var order = Array(0..<threads)
        for index in stride(from: threads - 1, to: 0, by: -1) {
            order.swapAt(index, Int(generator.next() % UInt64(index + 1)))
        }
        priorities = Array(repeating: 0, count: threads)
        for (rank, thread) in order.enumerated() {
            priorities[thread] = depth + rank
        }
        changePoints = (0..<(depth - 1)).map { _ in 1 + Int(generator.next() % UInt64(estimatedSteps)) }
        step = 0
        return true
    }

    mutating func choose(among enabled: [Int], previous: Int?) -> Int {
        step += 1
        var chosen = highest(among: enabled)
        for (index, point) in changePoints.enumerated() where point == step {
            priorities[chosen] = depth - 1 - index
            chosen = highest(among: enabled)
        }
        return chosen
    }

    private func highest(among enabled: [Int]) -> Int {
        enabled.max { priorities[$0] < priorities[$1] }.unsafelyUnwrapped
    }

    mutating func endSchedule(steps: Int) {
        estimatedSteps = max(estimatedSteps, steps)
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
    private(set) var boundLeftSchedulesOut = false

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
            if enabled.contains(chosen) {
                return chosen
            }
            // Not deterministic: drop the rest of the recorded path.
            diverged = true
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

/// Follows a recorded schedule, then runs without preemption.
struct ReplayStrategy: ExplorationStrategy {
    let choices: [Int]
    /// Whether a recorded choice that cannot run is replaced by the
    /// non-preemptive one (shrinking) rather than recorded as a divergence.
    let lenient: Bool
    private var step = 0
    /// The first step whose recorded thread could not run, if any.
    private(set) var divergence: (step: Int, thread: Int)?

    init(_ choices: [Int], lenient: Bool = false) {
        self.choices = choices
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
            if enabled.contains(choices[step]) {
                return choices[step]
            }
            if divergence == nil && !lenient {
                divergence = (step, choices[step])
            }
        }
        return nonPreemptiveChoice(among: enabled, previous: previous)
    }

    mutating func endSchedule(steps: Int) {}
}
