/// Upstream's side of an `observe(on:)` sink, in one object: the queue lock,
/// the state machine and the queued elements it guards.
///
/// Upstream touches this object on every element (the lock word, the state,
/// the buffer's count), while the drain reads the sink object on every
/// element (the disposed flag, the observer, its batch). Padding on both sides
/// keeps this object's fields on cache lines that nothing else uses, so
/// upstream's writes never take a line the drain is reading from the drain's
/// core (false sharing), whatever the allocator places next to it. One object
/// rather than one per part: a subscription allocates it once.
final class ObserveOnQueue<Element>: @unchecked Sendable {
    private let paddingBefore = CacheLinePadding()
    /// Guards `machine` and `elements`.
    let lock = ObserveOnQueueLock()
    /// Guarded by `lock`. Exclusive access is the lock's job, so the run-time
    /// check of every access (`swift_beginAccess`) would be paid per element
    /// for nothing.
    @exclusivity(unchecked)
    var machine = ObserveOnStateMachine()
    /// The elements queued by upstream. Guarded by `lock`; unchecked for the
    /// same reason.
    @exclusivity(unchecked)
    var elements = ElementBuffer()
    private let paddingAfter = CacheLinePadding()

    init() {}

    /// Appends `element` to `elements`; the caller holds `lock`.
    ///
    /// A method of this class, never inlined, so that `Element` comes from
    /// the instance's metadata: the sink, whose element type is its
    /// observer's associated type, would look it up per element.
    @inline(never)
    final func append(_ element: Element) {
        elements.append(element)
    }

    deinit {
        elements.release(of: Element.self)
    }
}

/// 64 bytes of nothing, to keep neighbouring fields off a cache line.
struct CacheLinePadding {
    private let words: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)
}
