import Foundation

extension ScheduleController {
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

    /// `queue`'s line, made on first use (under `mutex`).
    func line(for queue: AnyObject) -> HandOffQueue {
        if let known = queues.first(where: { Self.isSameQueue($0.object, queue) }) {
            return known
        }
        let line = HandOffQueue(object: queue, serial: Exploration.isSerial(queue))
        queues.append(line)
        return line
    }

    /// Whether `a` and `b` are one queue. On Linux every read of
    /// `DispatchQueue.main` makes a new object: the main queue is known by its label.
    static func isSameQueue(_ a: AnyObject, _ b: AnyObject) -> Bool {
        if a === b {
            return true
        }
        guard let a = a as? DispatchQueue, let b = b as? DispatchQueue else { return false }
        return a.label == mainQueueLabel && b.label == mainQueueLabel
    }

    static let mainQueueLabel = DispatchQueue.main.label

    /// Gives every block its queue lets start a free worker, if any (under
    /// `mutex`); appends the thread of each worker given a block to `started`.
    func assignHandOffs(started: inout [Int]) {
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
    static func runningOnItsQueue(
        _ block: @escaping @Sendable () -> Void, of queue: AnyObject, barrier: Bool
    ) -> () -> Void {
        guard let queue = queue as? DispatchQueue, queue.label != mainQueueLabel else { return block }
        return { queue.sync(flags: barrier ? .barrier : [], execute: block) }
    }

    /// The block on `worker` returned: it leaves its queue's line and the worker is free.
    func finishHandOff(onWorker worker: Int) {
        pthread_mutex_lock(mutex)
        if let entry = workerEntries[worker] {
            entry.queue.entries.removeAll { $0 === entry }
            workerEntries[worker] = nil
        }
        pthread_mutex_unlock(mutex)
    }
}

/// One queue's line of handed-off blocks, oldest first (guarded by the controller's mutex).
final class HandOffQueue {
    let object: AnyObject
    let serial: Bool
    var entries: [HandOffEntry] = []

    init(object: AnyObject, serial: Bool) {
        self.object = object
        self.serial = serial
    }
}

/// A handed-off block, and the worker running it once it started.
final class HandOffEntry {
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
