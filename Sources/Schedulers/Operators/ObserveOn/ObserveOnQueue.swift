/// Upstream's side of an `observe(on:)` sink, in one object: the queue lock,
/// the state machine and the queued elements it guards; and, past them, the
/// drain's batch.
///
/// Upstream touches this object on every element (the lock word, the state,
/// the buffer's count), while the drain reads the sink object on every
/// element (the disposed flag, the observer) and the batch here. Padding on
/// both sides of upstream's fields keeps them on cache lines that nothing
/// else uses, so upstream's writes never take a line the drain is reading
/// from the drain's core (false sharing), whatever the allocator places next
/// to it. One object rather than one per part: a subscription allocates it
/// once.
///
/// Its fields go without the run-time exclusivity check (see each), which
/// is an unsafe construct: this class is the only one in the library's
/// `observe(on:)` that has such fields, and they are reached only through its
/// methods, each saying why its access is exclusive.
final class ObserveOnQueue<Element>: @unchecked Sendable {
    private let paddingBefore = CacheLinePadding()
    /// Guards `machine` and `elements`.
    let lock = ObserveOnQueueLock()
    /// Guarded by `lock`. Exclusive access is the lock's job, so the run-time
    /// check of every access (`swift_beginAccess`) would be paid per element
    /// for nothing, more than doubling an element's instructions
    /// (Performance.md, "Exclusivity checks").
    @exclusivity(unchecked)
    private var machine = ObserveOnStateMachine()
    /// The elements queued by upstream. Guarded by `lock`; unchecked for the
    /// same reason.
    @exclusivity(unchecked)
    private var elements = ElementBuffer()
    private let paddingAfter = CacheLinePadding()
    /// The elements the running drain delivers. Owned by the running drain
    /// (at most one exists), which trades contents with `elements` under the
    /// lock; nothing else touches it. Unchecked: few accesses per batch, but
    /// a short subscription pays each check (a thread-local lookup and an
    /// access-set insertion) in full.
    @exclusivity(unchecked)
    private var batch = ElementBuffer()

    init() {}

    /// An element arrived from upstream: queues it unless the sink is
    /// disposed, and says whether a drain must be scheduled.
    ///
    /// Locks by hand rather than with `lock.withLock`: in the sink's
    /// unspecialised code the closure may stay a separate function, a call
    /// and a frame per element.
    @inline(__always)
    final func elementArrived(_ element: Element) -> Bool {
        lock.lock()
        // unsafe: `machine` is unchecked; `lock` is held.
        switch unsafe machine.elementArrived() {
        case .enqueue:
            append(element)
            lock.unlock()
            return false
        case .enqueueAndScheduleDrain:
            append(element)
            lock.unlock()
            return true
        case .drop:
            lock.unlock()
            return false
        }
    }

    /// Appends `element` to `elements`; the caller holds `lock`.
    ///
    /// A method of this class, never inlined, so that `Element` comes from
    /// the instance's metadata: the sink, whose element type is its
    /// observer's associated type, would look it up per element.
    @inline(never)
    private final func append(_ element: Element) {
        // unsafe: `elements` is unchecked, and its elements are always this class's `Element`; `lock` is held.
        unsafe elements.append(element)
    }

    /// The terminal event arrived from upstream.
    final func terminalArrived(_ terminal: ObserveOnTerminalEvent) -> ObserveOnStateMachine.TerminalAction {
        // unsafe: `machine` is unchecked; `lock` is held.
        lock.withLock { unsafe machine.terminalArrived(terminal) }
    }

    /// The drain asks for work: when there is some, the queued elements
    /// become the batch (the batch, delivered and empty, takes their place).
    final func takeQueued() -> ObserveOnStateMachine.DrainStep {
        lock.withLock {
            // unsafe: `machine`, `elements` are unchecked; `lock` is held.
            let step = unsafe machine.drainNeedsWork(queuedCount: elements.count)
            if case .deliverQueued = step {
                // unsafe: `elements` under `lock`; `batch` belongs to the one running drain, the caller.
                unsafe swap(&elements, &batch)
            }
            return step
        }
    }

    #if SCHEDULERS_DRAIN_STATISTICS
    /// How many elements the batch taken by `takeQueued()` holds, for the
    /// drain statistics' probe. Called only by the running drain.
    final var batchCount: Int {
        // unsafe: `batch` belongs to the one running drain, the caller.
        unsafe batch.count
    }

    /// How many elements upstream has queued since the drain took its
    /// batch, for the drain statistics' spin probe. Takes the lock, as the
    /// drain does to take a batch: the probe looks every few hundred
    /// nanoseconds, where a counter kept for it would cost every element.
    final var queuedCount: Int {
        // unsafe: `elements` is unchecked; `lock` is held.
        lock.withLock { unsafe elements.count }
    }
    #endif

    /// Delivers the batch taken by `takeQueued()`, then empties it (see
    /// `ElementBuffer.deliverAll`). Called only by the running drain.
    @inline(__always)
    final func deliverBatch(stoppingWhen stop: () -> Bool, to deliver: (Element) -> Void) {
        // unsafe: `batch` belongs to the one running drain, the caller; its elements are always `Element`.
        unsafe batch.deliverAll(stoppingWhen: stop, to: deliver)
    }

    /// The sink was disposed: no more elements are queued, and those queued
    /// (and a terminal event not yet delivered) are dropped.
    ///
    /// They are taken out under the lock and destroyed after it is released:
    /// destroying an element or an error runs its deinit, user code that may
    /// send another event into this same sink (which takes this lock) or
    /// dispose it again. No user code runs under the lock.
    final func dispose() {
        #if SCHEDULERS_MUTANTS
        if Mutant.active == .observeOnDeinitReentry {
            // The mutant: the queued elements and the terminal event die under the lock.
            lock.withLock {
                // unsafe: as below; `lock` is held.
                _ = unsafe machine.dispose()
                // unsafe: as below; the elements are always `Element`.
                unsafe elements.removeAll(of: Element.self)
            }
            return
        }
        #endif
        var dropped = ElementBuffer()
        let droppedTerminal: ObserveOnTerminalEvent? = lock.withLock {
            // unsafe: `elements` is unchecked; `lock` is held. Its storage moves to `dropped`, released below.
            unsafe swap(&elements, &dropped)
            // unsafe: `machine` is unchecked; `lock` is held.
            return unsafe machine.dispose()
        }
        // unsafe: `dropped` owns what `elements` held (all of them `Element`), released once, here.
        unsafe dropped.release(of: Element.self)
        _ = consume droppedTerminal
    }

    deinit {
        // unsafe: the last reference is gone, so nothing else can touch them; the elements are always `Element`.
        unsafe elements.release(of: Element.self)
        // unsafe: as above.
        unsafe batch.release(of: Element.self)
    }
}

/// 64 bytes of nothing, to keep neighbouring fields off a cache line.
struct CacheLinePadding {
    private let words: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)
}
