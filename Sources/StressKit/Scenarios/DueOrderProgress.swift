import Dispatch
import Foundation
import Schedulers
import Synchronization

/// Due-time order and starvation: work that fell due before other work was
/// enqueued runs before it, whatever floods the serial target.
///
/// Actor 0 schedules the work under test, seeded per iteration: a timer due
/// in 1 ms, or an action (due when `schedule` returns). Actors 1 and 2 flood
/// the target with executor jobs or with actions (seeded too), each item
/// stamped with the time before it was enqueued, until the work ran or
/// ``DueOrderProgress/floodSeconds`` after it fell due. Forbidden: an item
/// enqueued after the work fell due ran before it. A timer falls due when
/// the system delivers a control timer of the same deadline (so the timer
/// thread's own latency on a loaded machine never counts), and an item
/// counts against it only when it was enqueued more than
/// ``DueOrderProgress/timerMarginSeconds`` after that; against an action,
/// any item enqueued after `schedule` returned counts.
final class DueOrderProgress: StressScenario, @unchecked Sendable {
    enum Outcome: String, ScenarioOutcome {
        case inOrder = "ran-before-later-work"
        case timerOvertakenByJobs = "timer-overtaken-by-later-jobs"
        case timerOvertakenByActions = "timer-overtaken-by-later-actions"
        case actionOvertakenByJobs = "action-overtaken-by-later-jobs"
        case actionOvertakenByActions = "action-overtaken-by-later-actions"
        case neverRan = "never-ran"

        var stopsTheRun: Bool { self == .neverRan }
        var grade: Grade {
            self == .inOrder ? .acceptable : .forbidden
        }
        var meaning: String {
            let margin = "more than \(Int(DueOrderProgress.timerMarginSeconds * 1000)) ms after it fell due"
            return switch self {
            case .inOrder: "the work ran before every job and action enqueued after it fell due"
            case .timerOvertakenByJobs: "executor jobs enqueued \(margin) ran before the timer's action (starved)"
            case .timerOvertakenByActions: "actions scheduled \(margin) ran before the timer's action (starved)"
            case .actionOvertakenByJobs: "executor jobs enqueued after the action was scheduled ran before it"
            case .actionOvertakenByActions: "actions scheduled after the action ran before it"
            case .neverRan: "the work or a flood item did not run within the stall timeout"
            }
        }
    }

    /// A timer's handler may reach the queue this long after the control
    /// timer of the same deadline was delivered without being starved.
    static let timerMarginSeconds = 0.02
    /// How long the flood goes on past the due time while the work has not
    /// run: five margins, so a starved timer is seen overtaken.
    static let floodSeconds = 0.1
    /// The timer's delay.
    static let timerSeconds = 0.001

    final class State: @unchecked Sendable {
        let record = DueRecord()
        let isTimer: Bool
        let floodsJobs: Bool
        let token: LiveToken

        init(_ live: LiveCounter, isTimer: Bool, floodsJobs: Bool) {
            token = LiveToken(live)
            self.isTimer = isTimer
            self.floodsJobs = floodsJobs
        }
    }

    let name: String
    let guarantees = "progress"
    let summary: String
    let actorCount = 3
    let live = LiveCounter()
    private let target: SerialProgressTarget
    private var made: SerialProgressTarget.Made?

    init(_ target: SerialProgressTarget) {
        self.target = target
        name = (target.isReference ? "reference." : "") + "due-order.\(target.name)"
        summary = "\(target.name): a timer (1 ms) or an action falls due while two threads flood it with executor "
            + "jobs or actions; nothing enqueued after it fell due may run before it"
    }

    var explorationBlocker: String? {
        target.blocker ?? "a timer's due time and the flood are real time, which a schedule controller's virtual clock "
            + "does not pass while threads flood"
    }

    var batchLimit: Int? { 1 }
    /// An iteration lasts a few milliseconds of real time.
    var iterationDivisor: Int { 250 }

    func setUp() {
        made = target.make()
    }

    func tearDown() {
        _ = made?.settle(10)
        made?.finish()
        made = nil
    }

    func makeState(_ choices: inout IterationChoices) -> State {
        let pick = choices.pick(4)
        return State(live, isTimer: pick < 2, floodsJobs: pick.isMultiple(of: 2))
    }

    func act(_ actor: Int, on state: State) {
        guard let made else { return }
        let record = state.record
        if actor == 0 {
            if state.isTimer {
                // The due time is when the system delivers a control timer
                // with the same deadline: a timer thread the machine's load
                // delays delays both, so its latency never counts as starvation.
                let control = DispatchSource.makeTimerSource(queue: DispatchQueue.global())
                control.schedule(deadline: .now() + Self.timerSeconds, leeway: .nanoseconds(0))
                control.setEventHandler { [control] in
                    record.dueAt.store(monotonicNanoseconds(), ordering: .releasing)
                    control.cancel()
                }
                control.resume()
                made.after(Self.timerSeconds) { record.workRan() }
            } else {
                made.action { record.workRan() }
                record.dueAt.store(monotonicNanoseconds(), ordering: .releasing)
            }
            return
        }
        let margin: UInt64 = state.isTimer ? UInt64(Self.timerMarginSeconds * 1e9) : 0
        let flood: UInt64 = UInt64(Self.floodSeconds * 1e9)
        let giveUp = monotonicNanoseconds() &+ 10_000_000_000
        let submit = state.floodsJobs ? made.job : made.action
        while !record.ran.load(ordering: .acquiring) {
            let now = monotonicNanoseconds()
            let due = record.dueAt.load(ordering: .acquiring)
            if (due != 0 && now > due &+ flood) || now > giveUp { break }
            record.enqueued.wrappingAdd(1, ordering: .relaxed)
            submit { record.itemRan(enqueuedAt: now, margin: margin) }
        }
    }

    func arbitrate(_ state: State) -> Outcome {
        let record = state.record
        guard record.ranSignal.wait(timeout: .now() + 10) == .success, made?.settle(10) ?? true else {
            return .neverRan
        }
        guard record.overtakers.load(ordering: .relaxed) > 0 else { return .inOrder }
        switch (state.isTimer, state.floodsJobs) {
        case (true, true): return .timerOvertakenByJobs
        case (true, false): return .timerOvertakenByActions
        case (false, true): return .actionOvertakenByJobs
        case (false, false): return .actionOvertakenByActions
        }
    }
}

/// Periodic work under a flood: ticks keep coming, and ticks the job skips
/// are counted, while two threads flood the serial target with executor jobs.
///
/// Actor 0 starts a periodic job (every ``period`` seconds) and disposes it
/// after ``window`` seconds; actors 1 and 2 flood the target with jobs for
/// the window. Forbidden: a gap between ticks (or before the first) longer
/// than ``starvedSeconds`` while the flood went on: the ticks were starved.
/// Skipped ticks are allowed (guarantee 6's bounded catch-up counts them).
final class PeriodicProgress: StressScenario, @unchecked Sendable {
    enum Outcome: String, ScenarioOutcome {
        case onTime = "kept-ticking"
        case skipped = "kept-ticking-skipping-some"
        case starved = "ticks-starved-by-the-flood"
        case neverSettled = "never-settled"

        var stopsTheRun: Bool { self == .neverSettled }
        var grade: Grade {
            switch self {
            case .onTime: .acceptable
            case .skipped: .interesting
            case .starved, .neverSettled: .forbidden
            }
        }
        var meaning: String {
            switch self {
            case .onTime: "a tick came at least every \(Int(PeriodicProgress.starvedSeconds * 1000)) ms, none skipped"
            case .skipped:
                "a tick came at least every \(Int(PeriodicProgress.starvedSeconds * 1000)) ms; the job skipped some, "
                    + "and counted them"
            case .starved:
                "no tick for more than \(Int(PeriodicProgress.starvedSeconds * 1000)) ms while the flood went on"
            case .neverSettled: "the target did not run what it was given within the stall timeout"
            }
        }
    }

    /// The job's period.
    static let period = 0.005
    /// How long the flood and the job run.
    static let window = 0.12
    /// A gap between ticks longer than this, during the flood, is starvation.
    static let starvedSeconds = 0.05

    final class State: @unchecked Sendable {
        let started = Atomic<UInt64>(0)
        let floodEnds = Atomic<UInt64>(0)
        let ticks = Mutex<[UInt64]>([])
        let skipped = Atomic<Int>(0)
        let token: LiveToken

        init(_ live: LiveCounter) {
            token = LiveToken(live)
        }
    }

    let name: String
    let guarantees = "6, progress"
    let summary: String
    let actorCount = 3
    let live = LiveCounter()
    private let target: SerialProgressTarget
    private var made: SerialProgressTarget.Made?

    init(_ target: SerialProgressTarget) {
        self.target = target
        name = (target.isReference ? "reference." : "") + "periodic-progress.\(target.name)"
        summary = "\(target.name): periodic work every \(Int(Self.period * 1000)) ms while two threads flood it with "
            + "executor jobs for \(Int(Self.window * 1000)) ms; ticks keep coming"
    }

    var explorationBlocker: String? {
        target.blocker ?? "ticks against a flood are real time, which a schedule controller's virtual clock does not pass"
    }

    var batchLimit: Int? { 1 }
    /// An iteration lasts the window, 120 ms of real time.
    var iterationDivisor: Int { 10_000 }

    func setUp() {
        made = target.make()
    }

    func tearDown() {
        _ = made?.settle(10)
        made?.finish()
        made = nil
    }

    func makeState(_ choices: inout IterationChoices) -> State {
        State(live)
    }

    func act(_ actor: Int, on state: State) {
        guard let made else { return }
        if actor == 0 {
            let start = monotonicNanoseconds()
            state.started.store(start, ordering: .releasing)
            state.floodEnds.store(start &+ UInt64(Self.window * 1e9), ordering: .releasing)
            let handle = made.periodic(Self.period) {
                let now = monotonicNanoseconds()
                state.ticks.withLock { $0.append(now) }
            }
            while monotonicNanoseconds() < start &+ UInt64(Self.window * 1e9) {
                usleep(1_000)
            }
            handle.dispose()
            state.skipped.store(handle.skippedTicks() ?? 0, ordering: .relaxed)
            return
        }
        var ends: UInt64 = 0
        while ends == 0 {
            ends = state.floodEnds.load(ordering: .acquiring)
        }
        while monotonicNanoseconds() < ends {
            made.job {}
        }
    }

    func arbitrate(_ state: State) -> Outcome {
        guard made?.settle(10) ?? true else { return .neverSettled }
        let start = state.started.load(ordering: .acquiring)
        let ends = state.floodEnds.load(ordering: .acquiring)
        let ticks = state.ticks.withLock { $0 }.filter { $0 <= ends }
        var previous = start
        var longest: UInt64 = 0
        for tick in ticks {
            longest = max(longest, tick &- previous)
            previous = tick
        }
        longest = max(longest, ends &- previous)
        if Double(longest) / 1e9 > Self.starvedSeconds {
            return .starved
        }
        return state.skipped.load(ordering: .relaxed) > 0 ? .skipped : .onTime
    }
}
