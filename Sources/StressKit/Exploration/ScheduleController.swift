import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Picks, at every step of one schedule, which controlled thread goes next.
protocol ScheduleChooser {
    /// The thread to run next: one of `enabled` (never empty, ascending).
    /// `previous` is the thread that ran the step before, if any.
    mutating func choose(among enabled: [Int], previous: Int?) -> Int
}

/// How one schedule ended.
enum ScheduleEnd: Equatable, Sendable {
    /// Every thread returned.
    case completed
    /// Every thread that had not returned was waiting for another (a lock
    /// held by a waiter, or spinning on each other).
    case deadlock
    /// The schedule took more than the step budget (a livelock, or a
    /// scenario far bigger than exploration is meant for).
    case stepBudgetExceeded
    /// A thread did not reach its next sync point in time: it blocked on
    /// something the controller does not see (a semaphore, a queue).
    case stuckOutsideSeam

    /// The undeclared outcome a scenario's table shows for it.
    var outcome: OutcomeDeclaration? {
        switch self {
        case .completed:
            nil
        case .deadlock:
            OutcomeDeclaration(
                id: "explore.deadlock", grade: .forbidden,
                meaning: "every unfinished thread waited for another (deadlock); exploration stopped")
        case .stepBudgetExceeded:
            OutcomeDeclaration(
                id: "explore.no-progress", grade: .forbidden,
                meaning: "the schedule exceeded its step budget (livelock?); exploration stopped")
        case .stuckOutsideSeam:
            OutcomeDeclaration(
                id: "explore.stuck", grade: .forbidden,
                meaning: "a thread blocked outside the sync points; exploration stopped")
        }
    }
}

/// Runs the actors of one schedule on real threads, one at a time.
///
/// Each party is a long-lived thread parked on its own condition; the
/// controller (the calling thread) wakes exactly one, and waits until it
/// reaches its next sync point (`Exploration.syncPoint`, or the library's
/// when built with the `Exploration` trait) or returns. So the order of
/// every synchronisation step is the controller's choice, and the sequence
/// of choices (the schedule) replays the run. A party that waits for
/// another (a lock found taken, a spin-wait round) is not picked again until
/// another party made progress; when none can, the schedule is a deadlock.
///
/// After a schedule that did not complete, the parties are released to run
/// freely and the controller is unusable (`isBroken`): its threads may be
/// stuck for good.
final class ScheduleController: @unchecked Sendable {
    /// The number of parties (threads).
    let parties: Int
    /// The most steps one schedule may take.
    let stepBudget: Int
    /// How long the controller waits for a party to reach its next sync point.
    let stepTimeoutSeconds: Double

    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private var partyConditions: [UnsafeMutablePointer<pthread_cond_t>] = []
    private let controllerCondition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private static let controllerTurn = -1
    // Guarded by `mutex`.
    private var turn = ScheduleController.controllerTurn
    private var lastStep: [SyncStep?]
    private var finished: [Bool]
    private var work: ((Int) -> Void)?
    private var freeRunning = false
    private var stopping = false
    private var exited = 0
    private var boxes: [ControlledPartyBox] = []

    /// Whether an unfinished schedule left the threads running freely.
    private(set) var isBroken = false

    init(parties: Int, stepBudget: Int = 20_000, stepTimeoutSeconds: Double = 10) {
        precondition((1...36).contains(parties), "ScheduleController(parties:) must be 1 to 36")
        self.parties = parties
        self.stepBudget = stepBudget
        self.stepTimeoutSeconds = stepTimeoutSeconds
        lastStep = Array(repeating: nil, count: parties)
        finished = Array(repeating: true, count: parties)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(controllerCondition, nil)
        for _ in 0..<parties {
            let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
            pthread_cond_init(condition, nil)
            partyConditions.append(condition)
        }
        Exploration.installLibraryHook()
        for index in 0..<parties {
            let box = ControlledPartyBox(ControlledParty(controller: self, index: index))
            boxes.append(box)
            let thread = Thread { [self] in
                ControlledParty.bind(box)
                partyLoop(index)
                ControlledParty.bind(nil)
            }
            thread.name = "stress.explore.\(index)"
            thread.stackSize = 8 << 20
            thread.start()
        }
    }

    deinit {
        if !isBroken {
            for condition in partyConditions {
                pthread_cond_destroy(condition)
                condition.deallocate()
            }
            pthread_cond_destroy(controllerCondition)
            controllerCondition.deallocate()
            pthread_mutex_destroy(mutex)
            mutex.deallocate()
        }
    }

    /// Stops and joins the threads (leaves them alone if the controller is broken).
    func stop() {
        guard !isBroken else { return }
        pthread_mutex_lock(mutex)
        stopping = true
        for condition in partyConditions {
            pthread_cond_signal(condition)
        }
        while exited < parties {
            pthread_cond_wait(controllerCondition, mutex)
        }
        pthread_mutex_unlock(mutex)
        // The threads held the boxes, which hold the controller: let it go.
        boxes = []
    }

    /// Runs `body(party)` on every party, one step at a time, in the order
    /// `chooser` picks. Returns the choices made and how the schedule ended.
    func run(_ body: @escaping (Int) -> Void, chooser: inout some ScheduleChooser) -> (choices: [Int], end: ScheduleEnd) {
        precondition(!isBroken, "ScheduleController.run after a schedule that did not complete")
        pthread_mutex_lock(mutex)
        work = body
        for index in 0..<parties {
            finished[index] = false
            lastStep[index] = nil
        }
        pthread_mutex_unlock(mutex)

        var choices: [Int] = []
        var waiting = Array(repeating: false, count: parties)
        var done = Array(repeating: false, count: parties)
        var previous: Int?
        var enabled: [Int] = []
        enabled.reserveCapacity(parties)
        while true {
            enabled.removeAll(keepingCapacity: true)
            var unfinished = 0
            for index in 0..<parties where !done[index] {
                unfinished += 1
                if !waiting[index] {
                    enabled.append(index)
                }
            }
            if unfinished == 0 {
                break
            }
            if enabled.isEmpty {
                return (choices, abandon(.deadlock))
            }
            if choices.count >= stepBudget {
                return (choices, abandon(.stepBudgetExceeded))
            }
            let chosen = chooser.choose(among: enabled, previous: previous)
            precondition(enabled.contains(chosen), "a schedule chooser picked a thread that cannot run")
            choices.append(chosen)
            previous = chosen
            guard let (step, returned) = resume(chosen) else {
                return (choices, abandon(.stuckOutsideSeam))
            }
            if returned {
                done[chosen] = true
            }
            let progressed = returned || !(step?.waitsForOthers ?? false)
            waiting[chosen] = !returned && (step?.waitsForOthers ?? false)
            if progressed {
                for index in 0..<parties where index != chosen {
                    waiting[index] = false
                }
            }
        }
        pthread_mutex_lock(mutex)
        work = nil
        pthread_mutex_unlock(mutex)
        return (choices, .completed)
    }

    /// Called by party `party` at a sync point: hands the turn back and waits
    /// for it. Returns `false` at once when the threads run freely (after a
    /// schedule that did not complete).
    func yield(party: Int, step: SyncStep) -> Bool {
        pthread_mutex_lock(mutex)
        if freeRunning {
            pthread_mutex_unlock(mutex)
            return false
        }
        lastStep[party] = step
        turn = Self.controllerTurn
        pthread_cond_signal(controllerCondition)
        while turn != party && !freeRunning {
            pthread_cond_wait(partyConditions[party], mutex)
        }
        pthread_mutex_unlock(mutex)
        return true
    }

    /// Gives `party` the turn; waits until it stops at a sync point (its step)
    /// or returns (`returned`). `nil` when it did neither in time.
    private func resume(_ party: Int) -> (step: SyncStep?, returned: Bool)? {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        lastStep[party] = nil
        turn = party
        pthread_cond_signal(partyConditions[party])
        var deadline = timespec()
        clock_gettime(CLOCK_REALTIME, &deadline)
        let nanoseconds = Int(stepTimeoutSeconds * 1e9)
        deadline.tv_sec += nanoseconds / 1_000_000_000 + (deadline.tv_nsec + nanoseconds % 1_000_000_000) / 1_000_000_000
        deadline.tv_nsec = (deadline.tv_nsec + nanoseconds % 1_000_000_000) % 1_000_000_000
        while turn != Self.controllerTurn {
            if pthread_cond_timedwait(controllerCondition, mutex, &deadline) == ETIMEDOUT
                && turn != Self.controllerTurn {
                return nil
            }
        }
        return (lastStep[party], finished[party])
    }

    /// Lets every party run freely from now on; the controller is broken.
    private func abandon(_ end: ScheduleEnd) -> ScheduleEnd {
        pthread_mutex_lock(mutex)
        freeRunning = true
        isBroken = true
        for condition in partyConditions {
            pthread_cond_signal(condition)
        }
        pthread_mutex_unlock(mutex)
        return end
    }

    private func partyLoop(_ party: Int) {
        pthread_mutex_lock(mutex)
        while true {
            while turn != party && !stopping && !(freeRunning && !finished[party] && work != nil) {
                pthread_cond_wait(partyConditions[party], mutex)
            }
            if stopping {
                exited += 1
                pthread_cond_signal(controllerCondition)
                pthread_mutex_unlock(mutex)
                return
            }
            guard let body = work else {
                // Released after an abandoned schedule with nothing to run.
                pthread_mutex_unlock(mutex)
                return
            }
            pthread_mutex_unlock(mutex)
            body(party)
            pthread_mutex_lock(mutex)
            finished[party] = true
            if freeRunning {
                pthread_mutex_unlock(mutex)
                return
            }
            turn = Self.controllerTurn
            pthread_cond_signal(controllerCondition)
        }
    }
}
