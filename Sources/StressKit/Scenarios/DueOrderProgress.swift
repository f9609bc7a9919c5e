import Dispatch
import Foundation
import Schedulers
import Synchronization

/// Due-time order and starvation: work that fell due before other work was
/// enqueued runs before it, whatever floods the serial target.
///
/// Actor 0 schedules the work under test, seeded per iteration: a timer due
/// in 1 ms, or an action (due when `schedule` returns). Actors 1 and 2 flood
/// the target with executor jobs or with actions (seeded too). Forbidden: an
/// item enqueued after the work fell due ran before it.
///
/// On real threads each item is stamped with the time before it was
/// enqueued, and the flood goes on until the work ran or
/// ``DueOrderProgress/floodSeconds`` after it fell due. A timer falls due
/// when the system delivers a control timer of the same deadline (so the
/// timer thread's own latency on a loaded machine never counts), and an item
/// counts against it only when it was enqueued more than
/// ``DueOrderProgress/timerMarginSeconds`` after that; against an action,
/// any item enqueued after `schedule` returned counts.
///
/// Explored (`--explore`), the rule is one of order alone, decided by the
/// schedule: the timer is virtual, and it has fallen due once its fire has
/// reached the scheduler's queue (`Exploration.timerFireReached`: its
/// handler was handed to that queue, or ran on the queue it fires on and
/// returned); each flooder enqueues ``DueOrderProgress/exploredItemsBefore``
/// items, waits (a spin-wait the controller schedules) until the work fell
/// due or ran, then enqueues ``DueOrderProgress/exploredItemsAfter`` more,
/// each marked with whether the work had fallen due when it was enqueued.
/// No clock is read, so the same schedule gives the same outcome.
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
            let margin = "after it fell due (on real threads, more than "
                + "\(Int(DueOrderProgress.timerMarginSeconds * 1000)) ms after; explored, after its fire reached the queue)"
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
    static let timerMarginSeconds = 0.05
    /// How long the flood goes on past the due time while the work has not
    /// run: three margins, so a starved timer is seen overtaken.
    static let floodSeconds = 0.15
    /// The timer's delay.
    static let timerSeconds = 0.001
    /// Explored: the items each flooder enqueues before it waits for the
    /// work to fall due (they may open a batch the work falls due behind).
    static let exploredItemsBefore = 1
    /// Explored: the items each flooder enqueues once the work fell due (or ran).
    static let exploredItemsAfter = 2

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
    let guarantees = "10"
    let summary: String
    let actorCount = 3
    let live = LiveCounter()
    private let target: SerialProgressTarget
    private var made: SerialProgressTarget.Made?

    init(_ target: SerialProgressTarget) {
        self.target = target
        name = target.scenarioName("due-order")
        summary = "\(target.name): a timer (1 ms) or an action falls due while two threads flood it with executor "
            + "jobs or actions; nothing enqueued after it fell due may run before it"
    }

    var explorationBlocker: String? {
        if let blocker = target.blocker {
            return blocker
        }
        return target.explorable
            ? nil
            : "its timers do not pass the library's hand-off seam, so a schedule controller cannot make them virtual"
    }

    /// The batch blocks of the jobs, the timer's fire and its handler, the
    /// actions, and the tasks' own jobs once they leave the actor.
    var explorationWorkers: Int { 5 }

    var batchLimit: Int? { 1 }
    /// An iteration lasts a few milliseconds of real time (tens on a
    /// reference that starves its timers).
    var iterationDivisor: Int { target.isReference ? 5_000 : 1_000 }

    func setUp() {
        made = target.make()
    }

    func tearDown() {
        made?.tearDown()
        made = nil
    }

    func makeState(_ choices: inout IterationChoices) -> State {
        let pick = choices.pick(4)
        return State(live, isTimer: pick < 2, floodsJobs: pick.isMultiple(of: 2))
    }

    func act(_ actor: Int, on state: State) {
        guard let made else { return }
        if Exploration.isControlledThread, let queue = made.queue {
            actExplored(actor, on: state, made, queue: queue)
            return
        }
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

    /// `act` under a schedule controller: the order rule of the type's
    /// documentation, with no clock.
    private func actExplored(_ actor: Int, on state: State, _ made: SerialProgressTarget.Made, queue: DispatchQueue) {
        let record = state.record
        if actor == 0 {
            if state.isTimer {
                made.after(Self.timerSeconds) { record.workRan() }
            } else {
                made.action { record.workRan() }
                record.actionScheduled.store(true, ordering: .releasing)
            }
            return
        }
        let fellDue: () -> Bool = state.isTimer
            ? { Exploration.timerFireReached(queue) }
            : { record.actionScheduled.load(ordering: .acquiring) }
        let submit = state.floodsJobs ? made.job : made.action
        func enqueue(_ count: Int) {
            for _ in 0..<count where !record.ran.load(ordering: .acquiring) {
                let afterDue = fellDue()
                record.enqueued.wrappingAdd(1, ordering: .relaxed)
                submit { record.itemRan(enqueuedAfterDue: afterDue) }
            }
        }
        enqueue(Self.exploredItemsBefore)
        while !fellDue() && !record.ran.load(ordering: .acquiring) {
            // `false`: the controller gave the schedule up; stop waiting.
            guard Exploration.syncPoint(.spinWait) else { break }
        }
        enqueue(Self.exploredItemsAfter)
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
/// Actor 0 starts a periodic job (every ``period`` seconds); actors 1 and 2
/// flood the target with jobs for ``window`` seconds, each stamped with the
/// time before it was enqueued. Actor 0 disposes the job only once every
/// flood job has run: a tick that fell due behind the flood's backlog then
/// runs in its place (disposing it while it waits would drop it, and the
/// jobs enqueued after it would seem to have overtaken it). Once a
/// tick ran, the next is due at most a period later; it has fallen due once
/// a control timer of the same period (on another queue) fired after that,
/// so a loaded machine's timer latency never counts. A job that runs before
/// that next tick although it was enqueued more than ``marginSeconds`` after
/// such a control fire overtook it: forbidden, the ticks are starved. A backlog
/// of jobs enqueued before a tick fell due may delay it (first in, first
/// out); ticks the job skips are allowed and counted (guarantee 6).
final class PeriodicProgress: StressScenario, @unchecked Sendable {
    enum Outcome: String, ScenarioOutcome {
        case onTime = "kept-ticking"
        case skipped = "kept-ticking-skipping-some"
        case starved = "tick-overtaken-by-later-jobs"
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
            let margin = Int(PeriodicProgress.marginSeconds * 1000)
            return switch self {
            case .onTime: "no job enqueued after a tick fell due ran before it; none skipped"
            case .skipped: "no job enqueued after a tick fell due ran before it; the job skipped some, and counted them"
            case .starved: "jobs enqueued more than \(margin) ms after a tick fell due ran before it (starved)"
            case .neverSettled: "the target did not run what it was given within the stall timeout"
            }
        }
    }

    /// The job's period.
    static let period = 0.005
    /// How long the flood and the job run.
    static let window = 0.12
    /// A job enqueued this long after a tick fell due must not run before it.
    static let marginSeconds = 0.05

    final class State: @unchecked Sendable {
        let floodEnds = Atomic<UInt64>(0)
        /// When the last tick ran (the start before the first): the next is
        /// due at most a period later. Written and read on the serial target.
        let lastTick = Atomic<UInt64>(0)
        let overtakers = Atomic<Int>(0)
        let skipped = Atomic<Int>(0)
        /// How many flooding actors have enqueued their last job.
        let floodersDone = Atomic<Int>(0)
        /// Whether the flood's jobs had all run before the job was disposed.
        let settled = Atomic<Bool>(true)
        /// When the control timer fired, in order.
        let controlFires = Mutex<[UInt64]>([])
        let token: LiveToken

        init(_ live: LiveCounter) {
            token = LiveToken(live)
        }

        /// Whether the control timer fired at or after `due` and more than
        /// `margin` before `enqueued`: the tick due at `due` had fallen due
        /// when the job was enqueued.
        func fellDue(_ due: UInt64, before enqueued: UInt64, margin: UInt64) -> Bool {
            controlFires.withLock { fires in
                fires.contains { $0 >= due && $0 &+ margin < enqueued }
            }
        }
    }

    let name: String
    let guarantees = "6, 10"
    let summary: String
    let actorCount = 3
    let live = LiveCounter()
    private let target: SerialProgressTarget
    private var made: SerialProgressTarget.Made?

    init(_ target: SerialProgressTarget) {
        self.target = target
        name = target.scenarioName("periodic-progress")
        summary = "\(target.name): periodic work every \(Int(Self.period * 1000)) ms while two threads flood it with "
            + "executor jobs for \(Int(Self.window * 1000)) ms; no job enqueued after a tick fell due runs before it"
    }

    var explorationBlocker: String? {
        target.blocker ?? "ticks against a flood are real time, which a schedule controller's virtual clock does not pass"
    }

    var batchLimit: Int? { 1 }
    /// An iteration lasts the window, 120 ms of real time.
    var iterationDivisor: Int { target.isReference ? 25_000 : 10_000 }

    func setUp() {
        made = target.make()
    }

    func tearDown() {
        made?.tearDown()
        made = nil
    }

    func makeState(_ choices: inout IterationChoices) -> State {
        State(live)
    }

    func act(_ actor: Int, on state: State) {
        guard let made else { return }
        let period = UInt64(Self.period * 1e9)
        if actor == 0 {
            let start = monotonicNanoseconds()
            let ends = start &+ UInt64(Self.window * 1e9)
            state.lastTick.store(start, ordering: .releasing)
            state.floodEnds.store(ends, ordering: .releasing)
            let control = DispatchSource.makeTimerSource(queue: DispatchQueue.global())
            control.schedule(deadline: .now() + Self.period, repeating: Self.period, leeway: .nanoseconds(0))
            control.setEventHandler {
                let now = monotonicNanoseconds()
                state.controlFires.withLock { $0.append(now) }
            }
            control.resume()
            let handle = made.periodic(Self.period) {
                state.lastTick.store(monotonicNanoseconds(), ordering: .releasing)
            }
            while monotonicNanoseconds() < ends {
                usleep(1_000)
            }
            // The job goes on until every flood job has run: a tick enqueued
            // behind the flood's backlog runs in its place in the queue
            // instead of being dropped by `dispose()`, so no job enqueued
            // after it can seem to have overtaken it.
            let giveUp = monotonicNanoseconds() &+ 10_000_000_000
            while state.floodersDone.load(ordering: .acquiring) < actorCount - 1, monotonicNanoseconds() < giveUp {
                usleep(1_000)
            }
            state.settled.store(made.settle(10), ordering: .relaxed)
            handle.dispose()
            control.cancel()
            state.skipped.store(handle.skippedTicks() ?? 0, ordering: .relaxed)
            return
        }
        var ends: UInt64 = 0
        while ends == 0 {
            ends = state.floodEnds.load(ordering: .acquiring)
        }
        let margin = UInt64(Self.marginSeconds * 1e9)
        while true {
            let now = monotonicNanoseconds()
            guard now < ends else {
                state.floodersDone.wrappingAdd(1, ordering: .releasing)
                break
            }
            made.job {
                let due = state.lastTick.load(ordering: .acquiring) &+ period
                if now > due &+ margin, state.fellDue(due, before: now, margin: margin) {
                    state.overtakers.wrappingAdd(1, ordering: .relaxed)
                }
            }
        }
    }

    func arbitrate(_ state: State) -> Outcome {
        guard state.settled.load(ordering: .relaxed), made?.settle(10) ?? true else { return .neverSettled }
        if state.overtakers.load(ordering: .relaxed) > 0 {
            return .starved
        }
        return state.skipped.load(ordering: .relaxed) > 0 ? .skipped : .onTime
    }
}
