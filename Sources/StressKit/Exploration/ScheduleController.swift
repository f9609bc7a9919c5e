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
    /// Thread `thread` starts a new life in this schedule: a party at the
    /// start, or a hand-off worker given a new block (each block is a new
    /// thread of the schedule, though it runs in a reused worker slot).
    mutating func threadStarted(_ thread: Int)
}

extension ScheduleChooser {
    mutating func threadStarted(_ thread: Int) {}
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
    /// A job of a task on the controller's task executor was enqueued from
    /// a thread the controller does not run (see `ControlledTaskExecutor`).
    case uncontrolledJob

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
        case .uncontrolledJob:
            OutcomeDeclaration(
                id: "explore.uncontrolled-job", grade: .forbidden,
                meaning: "a task's job was enqueued from a thread no controller runs; exploration stopped")
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
/// Work the parties hand to a queue (`DispatchQueue.async`,
/// `OperationQueue.addOperation`, through the library's hand-off seam or
/// `Exploration.handOff`) runs on the controller's hand-off workers, threads
/// `parties` to `parties + workers - 1`, which it schedules like the parties:
/// each block is a thread of the schedule from the step it can start until
/// it returns. A block can start when its queue allows: a serial queue's
/// first block only (first in, first out, one at a time); a concurrent
/// queue's blocks up to its first barrier (a barrier alone, after every
/// block before it). Which worker runs a block is decided by the order of
/// the hand-offs (lowest free worker, queues in order of first use), so a
/// schedule replays. A schedule completes when every party returned and
/// every handed-off block ran.
///
/// After a schedule that did not complete, the parties are released to run
/// freely and the controller is unusable (`isBroken`): its threads may be
/// stuck for good.
final class ScheduleController: @unchecked Sendable {
    /// The number of parties (threads running the scenario's actors).
    let parties: Int
    /// The number of threads that run handed-off blocks (0: hand-offs reach their queues).
    let workers: Int
    /// Parties and workers: the threads a schedule names.
    var threadCount: Int { parties + workers }
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
    private var jobs: [(() -> Void)?]
    private var queues: [HandOffQueue] = []
    private var workerEntries: [HandOffEntry?]
    private var timerFires = 0
    private var virtualNow = ScheduleController.virtualEpochNanoseconds
    private var freeRunning = false
    private var stopping = false
    private var exited = 0
    private var boxes: [ControlledPartyBox] = []
    private var strayJobs = 0

    /// The task executor whose jobs this controller runs (see `ControlledTaskExecutor`).
    private(set) var taskExecutor: ControlledTaskExecutor!

    /// What each step of the last `run` ended at, one per choice: the
    /// ``SyncStep`` raw value the chosen thread stopped at, ``returnedStep``
    /// when it returned, ``unknownStep`` when it did neither in time. Read
    /// by the thread that called `run`, after it returned.
    private(set) var stepKinds: [UInt8] = []
    /// A step kind: the thread returned.
    static let returnedStep: UInt8 = 255
    /// A step kind: the thread neither stopped at a sync point nor returned in time.
    static let unknownStep: UInt8 = 254

    /// Whether an unfinished schedule left the threads running freely.
    private(set) var isBroken = false

    init(parties: Int, workers: Int = 0, stepBudget: Int = 20_000, stepTimeoutSeconds: Double = 10) {
        precondition(parties >= 1 && workers >= 0 && parties + workers <= Schedule.maximumThreads,
                     "ScheduleController(parties:workers:) needs 1 party or more, and at most \(Schedule.maximumThreads) threads in all")
        self.parties = parties
        self.workers = workers
        self.stepBudget = stepBudget
        self.stepTimeoutSeconds = stepTimeoutSeconds
        let threads = parties + workers
        lastStep = Array(repeating: nil, count: threads)
        finished = Array(repeating: true, count: threads)
        jobs = Array(repeating: nil, count: threads)
        workerEntries = Array(repeating: nil, count: workers)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(controllerCondition, nil)
        for _ in 0..<threads {
            let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
            pthread_cond_init(condition, nil)
            partyConditions.append(condition)
        }
        taskExecutor = ControlledTaskExecutor(controller: self)
        Exploration.installLibraryHook()
        for index in 0..<threads {
            let box = ControlledPartyBox(ControlledParty(controller: self, index: index))
            boxes.append(box)
            let thread = Thread { [self] in
                ControlledParty.bind(box)
                threadLoop(index)
                ControlledParty.bind(nil)
            }
            thread.name = index < parties ? "stress.explore.\(index)" : "stress.explore.worker.\(index - parties)"
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
        while exited < threadCount {
            pthread_cond_wait(controllerCondition, mutex)
        }
        pthread_mutex_unlock(mutex)
        // The threads held the boxes, which hold the controller: let it go.
        boxes = []
    }

    /// Runs `body(party)` on every party, one step at a time, in the order
    /// `chooser` picks, and every block the parties hand off on a worker.
    /// Returns the choices made and how the schedule ended.
    func run(_ body: @escaping (Int) -> Void, chooser: inout some ScheduleChooser) -> (choices: [Int], end: ScheduleEnd) {
        precondition(!isBroken, "ScheduleController.run after a schedule that did not complete")
        pthread_mutex_lock(mutex)
        for index in 0..<parties {
            finished[index] = false
            lastStep[index] = nil
            jobs[index] = { body(index) }
        }
        pthread_mutex_unlock(mutex)

        let threads = threadCount
        var choices: [Int] = []
        stepKinds = []
        var waiting = Array(repeating: false, count: threads)
        var done = Array(repeating: false, count: parties)
        var previous: Int?
        var enabled: [Int] = []
        var deferred: [Int] = []
        enabled.reserveCapacity(threads)
        pthread_mutex_lock(mutex)
        timerFires = 0
        virtualNow = Self.virtualEpochNanoseconds
        let strayBefore = strayJobs
        pthread_mutex_unlock(mutex)
        for index in 0..<parties {
            chooser.threadStarted(index)
        }
        var started: [Int] = []
        while true {
            pthread_mutex_lock(mutex)
            started.removeAll(keepingCapacity: true)
            assignHandOffs(started: &started)
            enabled.removeAll(keepingCapacity: true)
            deferred.removeAll(keepingCapacity: true)
            var unfinished = 0
            for index in 0..<threads {
                let entry = index < parties ? nil : workerEntries[index - parties]
                let active = index < parties ? !done[index] : entry != nil
                guard active else { continue }
                unfinished += 1
                if let entry, entry.isTimerFire, !entry.started, timerFires >= Self.maximumTimerFires {
                    deferred.append(index)
                } else if !waiting[index] {
                    enabled.append(index)
                }
            }
            if enabled.isEmpty {
                // Time passes only when nothing else can run.
                enabled = deferred
            }
            let pending = queues.contains { !$0.entries.isEmpty }
            pthread_mutex_unlock(mutex)
            for thread in started {
                chooser.threadStarted(thread)
            }
            if unfinished == 0 && !pending {
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
            if chosen >= parties {
                pthread_mutex_lock(mutex)
                workerEntries[chosen - parties]?.started = true
                pthread_mutex_unlock(mutex)
            }
            guard let (step, returned) = resume(chosen) else {
                stepKinds.append(Self.unknownStep)
                return (choices, abandon(.stuckOutsideSeam))
            }
            stepKinds.append(returned ? Self.returnedStep : step?.rawValue ?? Self.unknownStep)
            if returned {
                if chosen < parties {
                    done[chosen] = true
                } else {
                    finishHandOff(onWorker: chosen - parties)
                }
            }
            let progressed = returned || !(step?.waitsForOthers ?? false)
            waiting[chosen] = !returned && (step?.waitsForOthers ?? false)
            if progressed {
                for index in 0..<threads where index != chosen {
                    waiting[index] = false
                }
            }
        }
        pthread_mutex_lock(mutex)
        queues.removeAll()
        let strays = strayJobs - strayBefore
        pthread_mutex_unlock(mutex)
        if strays > 0 {
            return (choices, abandon(.uncontrolledJob))
        }
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

    /// Called by thread `party` handing `block` to `queue` (a `DispatchQueue`,
    /// an `OperationQueue` or a `ControlledTaskExecutor`): a sync point
    /// (unless not `yielding`), then the block joins the queue's line for a
    /// worker. Returns `false` when the controller has no workers or the
    /// threads run freely: the caller enqueues on the queue itself.
    func handOff(
        from party: Int, yielding: Bool = true, to queue: AnyObject, barrier: Bool,
        block: @escaping @Sendable () -> Void
    ) -> Bool {
        guard workers > 0 else { return false }
        if yielding {
            guard yield(party: party, step: .atomicUpdate) else { return false }
        }
        let serial = Exploration.isSerial(queue)
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        guard !freeRunning else { return false }
        let line: HandOffQueue
        if let known = queues.first(where: { Self.isSameQueue($0.object, queue) }) {
            line = known
        } else {
            line = HandOffQueue(object: queue, serial: serial)
            queues.append(line)
        }
        line.entries.append(HandOffEntry(block: block, barrier: barrier, queue: line))
        return true
    }

    /// `handOff(from:to:barrier:block:)` from the thread `box` belongs to,
    /// with a sync point unless the thread is in `Exploration.asOneStep`.
    func handOff(from box: ControlledPartyBox, to queue: AnyObject, barrier: Bool, block: @escaping @Sendable () -> Void) -> Bool {
        handOff(from: box.party.index, yielding: box.oneStepDepth == 0, to: queue, barrier: barrier, block: block)
    }

    /// Runs `body` (on the controller's own thread, between schedules) so
    /// that a job it enqueues on `taskExecutor` (a task it creates) joins
    /// the executor's line at once, to run in the next schedule.
    func preparing<Result>(_ body: () throws -> Result) rethrows -> Result {
        let previous = pthread_getspecific(Self.preparingKey)
        pthread_setspecific(Self.preparingKey, Unmanaged.passUnretained(self).toOpaque())
        defer { pthread_setspecific(Self.preparingKey, previous) }
        return try body()
    }

    /// The controller preparing a schedule's state on the calling thread, if any.
    static var preparingOnThisThread: ScheduleController? {
        pthread_getspecific(preparingKey).map { Unmanaged<ScheduleController>.fromOpaque($0).takeUnretainedValue() }
    }

    private static let preparingKey: pthread_key_t = {
        var key = pthread_key_t()
        let status = pthread_key_create(&key, nil)
        precondition(status == 0, "pthread_key_create failed with \(status)")
        return key
    }()

    /// Puts `block` in `queue`'s line when the calling thread is preparing
    /// this controller's next schedule (see `preparing`); returns whether it did.
    func acceptWhilePreparing(_ block: @escaping @Sendable () -> Void, on queue: AnyObject) -> Bool {
        guard workers > 0, Self.preparingOnThisThread === self else { return false }
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        guard !freeRunning else { return false }
        let line = line(for: queue)
        line.entries.append(HandOffEntry(block: block, barrier: false, queue: line))
        return true
    }

    /// Counts a job enqueued on `taskExecutor` from a thread the controller
    /// does not run: the schedule in progress ends as `uncontrolledJob`.
    func noteStrayJob() {
        pthread_mutex_lock(mutex)
        strayJobs += 1
        pthread_mutex_unlock(mutex)
    }

    /// `queue`'s line, made on first use (under `mutex`).
    private func line(for queue: AnyObject) -> HandOffQueue {
        if let known = queues.first(where: { Self.isSameQueue($0.object, queue) }) {
            return known
        }
        let line = HandOffQueue(object: queue, serial: Exploration.isSerial(queue))
        queues.append(line)
        return line
    }

    /// Whether `a` and `b` are one queue. On Linux every read of
    /// `DispatchQueue.main` makes a new object: the main queue is known by its label.
    private static func isSameQueue(_ a: AnyObject, _ b: AnyObject) -> Bool {
        if a === b {
            return true
        }
        guard let a = a as? DispatchQueue, let b = b as? DispatchQueue else { return false }
        return a.label == mainQueueLabel && b.label == mainQueueLabel
    }

    private static let mainQueueLabel = DispatchQueue.main.label

    /// The most ticks a repeating virtual timer fires in one schedule (then
    /// time stands still for it, so that a schedule ends).
    static let maximumRepeatingFires = 3
    /// Virtual timer fires in one schedule after which a fire waits until
    /// no other thread can run (so that a chain of timers, each armed by the
    /// previous one's handler, cannot starve the actors).
    static let maximumTimerFires = 8

    /// Where the virtual clock starts in every schedule, in uptime
    /// nanoseconds (above 0, which Dispatch reads as "now").
    static let virtualEpochNanoseconds: UInt64 = 1_000_000_000

    /// The virtual clock, in uptime nanoseconds, that controlled threads see
    /// instead of the real one: `virtualEpochNanoseconds` at the start of
    /// every schedule, moved only by a virtual timer's fire (to the deadline
    /// of the tick it fires, when later). `nil` when the controller has no
    /// workers (it makes no timer virtual) or the threads run freely: then
    /// the real clock counts.
    func virtualUptimeNanoseconds() -> UInt64? {
        guard workers > 0 else { return nil }
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return freeRunning ? nil : virtualNow
    }

    /// Called by thread `party` activating a dispatch timer on `queue`: a
    /// sync point, then the timer is virtual. Its fire is a block of its
    /// own, so the schedule decides when it comes (at any step, as if its
    /// time had come); the fire moves the virtual clock to the tick's
    /// deadline (`deadlineNanoseconds`, then every `intervalNanoseconds`
    /// for a repeating timer; the clock stays put when no deadline is given)
    /// and hands `handler` to `queue`, in the queue's order; a repeating
    /// timer fires again after its handler returned, at most
    /// `maximumRepeatingFires` times per schedule. Returns `nil` when the
    /// controller has no workers or the threads run freely: the caller
    /// makes a real timer.
    func armTimer(
        from party: Int, yielding: Bool = true, queue: DispatchQueue, repeating: Bool,
        deadlineNanoseconds: UInt64? = nil, intervalNanoseconds: UInt64 = 0,
        handler: @escaping @Sendable () -> Void
    ) -> VirtualTimer? {
        guard workers > 0 else { return nil }
        if yielding {
            guard yield(party: party, step: .atomicUpdate) else { return nil }
        }
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        guard !freeRunning else { return nil }
        let timer = VirtualTimer(queue: queue, repeating: repeating, handler: handler)
        timer.deadline = deadlineNanoseconds
        timer.interval = intervalNanoseconds
        timer.controller = self
        scheduleFire(of: timer)
        return timer
    }

    /// Cancels `timer`: its handler never starts again (from any thread).
    func cancelTimer(_ timer: VirtualTimer) {
        pthread_mutex_lock(mutex)
        timer.handler = nil
        if let line = queues.first(where: { $0.object === timer }) {
            line.entries.removeAll { $0.worker == nil }
        }
        pthread_mutex_unlock(mutex)
    }

    /// Puts `timer`'s next fire in its own line (under `mutex`).
    private func scheduleFire(of timer: VirtualTimer) {
        let line: HandOffQueue
        if let known = queues.first(where: { $0.object === timer }) {
            line = known
        } else {
            line = HandOffQueue(object: timer, serial: true)
            queues.append(line)
        }
        let entry = HandOffEntry(block: { [self] in fire(timer) }, barrier: false, queue: line)
        entry.isTimerFire = true
        line.entries.append(entry)
    }

    /// A timer's fire, on a worker: hands the handler to the timer's queue;
    /// the handler checks at its start that the timer was not cancelled.
    private func fire(_ timer: VirtualTimer) {
        pthread_mutex_lock(mutex)
        let armed = timer.handler != nil
        timerFires += 1
        if armed, let due = timer.dueNanoseconds {
            virtualNow = max(virtualNow, due)
        }
        pthread_mutex_unlock(mutex)
        guard armed, let party = ControlledParty.current?.index else { return }
        let tick: @Sendable () -> Void = { [self] in
            pthread_mutex_lock(mutex)
            let handler = timer.handler
            if !timer.repeating {
                timer.handler = nil
            }
            pthread_mutex_unlock(mutex)
            guard let handler else { return }
            handler()
            pthread_mutex_lock(mutex)
            timer.fires += 1
            if timer.repeating && timer.handler != nil && timer.fires < Self.maximumRepeatingFires && !freeRunning {
                scheduleFire(of: timer)
            }
            pthread_mutex_unlock(mutex)
        }
        if !handOff(from: party, to: timer.queue, barrier: false, block: tick) {
            timer.queue.async(execute: tick)
        }
    }

    /// Gives every block its queue lets start a free worker, if any (under
    /// `mutex`); appends the thread of each worker given a block to `started`.
    private func assignHandOffs(started: inout [Int]) {
        guard workers > 0 else { return }
        var free = (0..<workers).filter { workerEntries[$0] == nil }[...]
        guard !free.isEmpty else { return }
        for line in queues {
            for (position, entry) in line.entries.enumerated() {
                let mayStart = line.serial || entry.barrier || line.entries[..<position].contains(where: \.barrier)
                    ? position == 0 : true
                guard mayStart else { break }
                guard entry.worker == nil else { continue }
                guard let worker = free.popFirst() else { return }
                entry.worker = worker
                workerEntries[worker] = entry
                let slot = parties + worker
                started.append(slot)
                finished[slot] = false
                lastStep[slot] = nil
                jobs[slot] = Self.runningOnItsQueue(entry.block, of: line.object, barrier: entry.barrier)
            }
        }
    }

    /// `block` as a worker runs it: a block handed to a `DispatchQueue`
    /// other than the main queue runs inside `queue.sync`, on the worker's
    /// thread but with the queue as the current queue (what
    /// `DispatchQueue.getSpecific` and a serial executor's `isIsolated`
    /// read), as it would on the queue itself. The queue is idle then: its
    /// blocks all come through the controller, which starts them in the
    /// queue's order. The main queue is left out (only the main thread
    /// drains it).
    private static func runningOnItsQueue(
        _ block: @escaping @Sendable () -> Void, of queue: AnyObject, barrier: Bool
    ) -> () -> Void {
        guard let queue = queue as? DispatchQueue, queue.label != mainQueueLabel else { return block }
        return { queue.sync(flags: barrier ? .barrier : [], execute: block) }
    }

    /// The block on `worker` returned: it leaves its queue's line and the worker is free.
    private func finishHandOff(onWorker worker: Int) {
        pthread_mutex_lock(mutex)
        if let entry = workerEntries[worker] {
            entry.queue.entries.removeAll { $0 === entry }
            workerEntries[worker] = nil
        }
        pthread_mutex_unlock(mutex)
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
    /// Handed-off blocks no worker started are dropped.
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

    private func threadLoop(_ index: Int) {
        pthread_mutex_lock(mutex)
        while true {
            while turn != index && !stopping && !(freeRunning && !finished[index] && jobs[index] != nil) {
                pthread_cond_wait(partyConditions[index], mutex)
            }
            if stopping {
                exited += 1
                pthread_cond_signal(controllerCondition)
                pthread_mutex_unlock(mutex)
                return
            }
            guard let job = jobs[index] else {
                // Released after an abandoned schedule with nothing to run.
                pthread_mutex_unlock(mutex)
                return
            }
            pthread_mutex_unlock(mutex)
            job()
            pthread_mutex_lock(mutex)
            finished[index] = true
            jobs[index] = nil
            if freeRunning {
                pthread_mutex_unlock(mutex)
                return
            }
            turn = Self.controllerTurn
            pthread_cond_signal(controllerCondition)
        }
    }
}

/// A dispatch timer a controlled thread activated (see `ScheduleController.armTimer`).
final class VirtualTimer: @unchecked Sendable {
    let queue: DispatchQueue
    let repeating: Bool
    /// The controller that fires it.
    weak var controller: ScheduleController?
    /// `nil` once cancelled (or a one-shot timer's handler started); guarded by the controller's mutex.
    var handler: (@Sendable () -> Void)?
    /// Handlers run this schedule; guarded by the controller's mutex.
    var fires = 0
    /// The first tick's deadline on the virtual clock, if known, and the
    /// repeat interval (nanoseconds); set once when armed.
    var deadline: UInt64?
    var interval: UInt64 = 0

    /// The deadline of the tick that fires next (after `fires` handler runs).
    var dueNanoseconds: UInt64? {
        guard let deadline else { return nil }
        let (offset, overflow) = interval.multipliedReportingOverflow(by: UInt64(fires))
        let (due, late) = deadline.addingReportingOverflow(offset)
        return overflow || late ? .max : due
    }

    init(queue: DispatchQueue, repeating: Bool, handler: @escaping @Sendable () -> Void) {
        self.queue = queue
        self.repeating = repeating
        self.handler = handler
    }
}

/// One queue's line of handed-off blocks, oldest first (guarded by the controller's mutex).
private final class HandOffQueue {
    let object: AnyObject
    let serial: Bool
    var entries: [HandOffEntry] = []

    init(object: AnyObject, serial: Bool) {
        self.object = object
        self.serial = serial
    }
}

/// A handed-off block, and the worker running it once it started.
private final class HandOffEntry {
    let block: @Sendable () -> Void
    let barrier: Bool
    unowned let queue: HandOffQueue
    var worker: Int?
    /// Whether the block is a virtual timer's fire.
    var isTimerFire = false
    /// Whether its worker ran a step of it.
    var started = false

    init(block: @escaping @Sendable () -> Void, barrier: Bool, queue: HandOffQueue) {
        self.block = block
        self.barrier = barrier
        self.queue = queue
    }
}
