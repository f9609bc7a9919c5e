import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

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

    let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    var partyConditions: [UnsafeMutablePointer<pthread_cond_t>] = []
    let controllerCondition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    static let controllerTurn = -1
    // Guarded by `mutex`.
    var turn = ScheduleController.controllerTurn
    var lastStep: [SyncStep?]
    var finished: [Bool]
    var jobs: [(() -> Void)?]
    var queues: [HandOffQueue] = []
    var workerEntries: [HandOffEntry?]
    var timerFires = 0
    /// The virtual timers armed in the schedule in progress, in order.
    var scheduleTimers: [VirtualTimer] = []
    var virtualNow = ScheduleController.virtualEpochNanoseconds
    var freeRunning = false
    var stopping = false
    var exited = 0
    var boxes: [ControlledPartyBox] = []
    var strayJobs = 0

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
        scheduleTimers.removeAll()
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

    static let preparingKey: pthread_key_t = {
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

    /// Gives `party` the turn; waits until it stops at a sync point (its step)
    /// or returns (`returned`). `nil` when it did neither in time.
    func resume(_ party: Int) -> (step: SyncStep?, returned: Bool)? {
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
    func abandon(_ end: ScheduleEnd) -> ScheduleEnd {
        pthread_mutex_lock(mutex)
        freeRunning = true
        isBroken = true
        for condition in partyConditions {
            pthread_cond_signal(condition)
        }
        pthread_mutex_unlock(mutex)
        return end
    }

    func threadLoop(_ index: Int) {
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
