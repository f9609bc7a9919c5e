import Foundation

extension ScheduleController {
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
        scheduleTimers.append(timer)
        scheduleFire(of: timer)
        return timer
    }

    /// Whether a virtual timer armed in the schedule in progress has fired
    /// and its fire has reached `queue`: the timer's handler was handed to
    /// `queue` itself (it waits, runs or ran in `queue`'s order), or it ran
    /// on its own queue and returned, having handed on whatever it hands on.
    /// From then on the timer has fallen due as far as `queue` is concerned:
    /// nothing between the fire and `queue` still holds it (the analogue, on
    /// the virtual clock, of a real timer's delivery latency).
    func timerFireReached(_ queue: AnyObject) -> Bool {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return scheduleTimers.contains { timer in
            timer.fires > 0 || (timer.handedTicks > 0 && Self.isSameQueue(timer.queue, queue))
        }
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
    func scheduleFire(of timer: VirtualTimer) {
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
    func fire(_ timer: VirtualTimer) {
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
        if handOff(from: party, to: timer.queue, barrier: false, block: tick) {
            pthread_mutex_lock(mutex)
            timer.handedTicks += 1
            pthread_mutex_unlock(mutex)
        } else {
            timer.queue.async(execute: tick)
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
    /// Ticks (each a run of the handler) handed to `queue` this schedule;
    /// guarded by the controller's mutex.
    var handedTicks = 0
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
