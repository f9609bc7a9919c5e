import Foundation

/// What the loop runs. The loop asks `admit()` when it takes the work into
/// a batch, then calls `run()` for every admitted work in order.
protocol LoopWork: AnyObject {
    /// Whether the work stays in the batch the loop just took.
    func admit() -> Bool
    /// Runs the work on the loop's thread.
    func run()
}

/// A single-thread event loop: one thread, a condition variable, a FIFO of
/// ready work and a heap of timers ordered by due time (then by arrival).
///
/// Work enqueued from any thread runs on the loop's thread, one at a time,
/// in the order it was enqueued (timers in due-time order, ties in arrival
/// order, each after the ready work enqueued before it fell due).
///
/// The thread runs until `stop()`: releasing the loop does not end it.
final class EventLoop: @unchecked Sendable {
    private let condition = NSCondition()
    // Guarded by `condition`.
    private var ready: [LoopWork] = []
    private var timers = TimerHeap()
    private var stopping = false
    private var nextSequence: UInt64 = 0
    private var loopThread: Thread?
    /// Signalled by the loop's thread as it ends.
    private let ended = DispatchSemaphore(value: 0)
    /// Whether `stop()` has been called (guarded by `condition`).
    private var stopCalled = false

    init(name: String) {
        let started = DispatchSemaphore(value: 0)
        let thread = Thread { [self] in
            condition.lock()
            loopThread = Thread.current
            condition.unlock()
            started.signal()
            runLoop()
            // The thread keeps this closure, which keeps the loop: the loop
            // lets go of the thread once it ends, or the two would keep
            // each other alive.
            condition.lock()
            loopThread = nil
            condition.unlock()
            ended.signal()
        }
        thread.name = name
        thread.start()
        started.wait()
    }

    /// Whether the calling thread is the loop's.
    var isOnLoopThread: Bool {
        condition.lock()
        defer { condition.unlock() }
        return loopThread === Thread.current
    }

    /// Runs `work` after everything enqueued before it; drops it once the loop is stopped.
    func enqueue(_ work: LoopWork) {
        condition.lock()
        guard !stopping else {
            condition.unlock()
            return
        }
        ready.append(work)
        condition.signal()
        condition.unlock()
    }

    /// Runs `work` once the uptime clock reaches `due` (nanoseconds); drops it once the loop is stopped.
    func enqueue(_ work: LoopWork, due: UInt64) {
        condition.lock()
        guard !stopping else {
            condition.unlock()
            return
        }
        timers.push(TimerHeap.Entry(due: due, sequence: nextSequence, work: work))
        nextSequence &+= 1
        condition.signal()
        condition.unlock()
    }

    /// Ends the loop: what is still queued is dropped, never run. Returns
    /// once the loop's thread has ended (at once when called on that thread,
    /// or when already stopped).
    func stop() {
        condition.lock()
        let first = !stopCalled
        stopCalled = true
        stopping = true
        condition.signal()
        let onLoop = loopThread === Thread.current
        condition.unlock()
        if first && !onLoop {
            ended.wait()
        }
    }

    static func now() -> UInt64 {
        DispatchTime.now().uptimeNanoseconds
    }

    private func runLoop() {
        var batch: [LoopWork] = []
        while true {
            condition.lock()
            while true {
                if stopping {
                    let dropped = (ready, timers)
                    ready = []
                    timers = TimerHeap()
                    condition.unlock()
                    _ = dropped
                    return
                }
                let now = Self.now()
                while let first = timers.first, first.due <= now {
                    ready.append(timers.pop().work)
                }
                if !ready.isEmpty { break }
                if let first = timers.first {
                    _ = condition.wait(until: Date(timeIntervalSinceNow: Double(first.due - now) / 1e9))
                } else {
                    condition.wait()
                }
            }
            swap(&batch, &ready)
            condition.unlock()
            let admitted = batch.filter { $0.admit() }
            batch.removeAll(keepingCapacity: true)
            for work in admitted {
                work.run()
            }
        }
    }
}

/// A binary min-heap of timers by due time, then arrival.
struct TimerHeap {
    struct Entry {
        let due: UInt64
        let sequence: UInt64
        let work: LoopWork

        func precedes(_ other: Entry) -> Bool {
            due != other.due ? due < other.due : sequence < other.sequence
        }
    }

    private var entries: [Entry] = []

    var first: Entry? { entries.first }

    mutating func push(_ entry: Entry) {
        entries.append(entry)
        var child = entries.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard entries[child].precedes(entries[parent]) else { break }
            entries.swapAt(child, parent)
            child = parent
        }
    }

    mutating func pop() -> Entry {
        let top = entries[0]
        let last = entries.removeLast()
        if !entries.isEmpty {
            entries[0] = last
            var parent = 0
            while true {
                let left = 2 * parent + 1
                let right = left + 1
                var smallest = parent
                if left < entries.count && entries[left].precedes(entries[smallest]) { smallest = left }
                if right < entries.count && entries[right].precedes(entries[smallest]) { smallest = right }
                if smallest == parent { break }
                entries.swapAt(parent, smallest)
                parent = smallest
            }
        }
        return top
    }
}
