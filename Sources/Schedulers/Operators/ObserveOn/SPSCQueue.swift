import Synchronization

/// An unbounded lock-free FIFO queue for one producer and one consumer at a
/// time: the queue of an `observe(on:)` sink.
///
/// Elements live in rings (circular arrays whose capacity is a power of
/// two). Elements are numbered from 0 in the order they are pushed; element
/// `n` lies in its ring at slot `n & mask`. The producer publishes how many
/// elements it has pushed (`written`), the consumer how many it has removed
/// (`read`). When the producer finds its ring full it links a ring twice as
/// large after it and continues there; the consumer, on reaching the end of
/// a ring, follows the link and frees the old ring. So the queue grows until
/// its newest ring holds the largest backlog it has seen (a backlog first
/// spread over a chain of small rings may link one more ring the next time)
/// and, once there, allocates nothing: in steady state a push is a
/// copy into a slot and one store (a plain `mov` on x86, no read-modify-write),
/// and the consumer publishes its progress once per run of elements, not per
/// element.
///
/// Contract:
/// - At most one thread pushes at a time and at most one thread consumes
///   (`deliverAvailable`, `removeAvailable`, `isEmpty`) at a time; successive
///   producers, or successive consumers, must be ordered by happens-before
///   (for `observe(on:)`: upstream's serialised events for the producer, the
///   drain state machine's counter for the consumer). The producer and the
///   consumer may run concurrently, and the consumer may push from inside
///   `deliverAvailable`'s `deliver` (a drain running inline on the producer's
///   thread); that element is delivered by the next call.
/// - The consumer sees every element the producer pushed before (in
///   happens-before) the consumer's call, in push order.
/// - Elements are destroyed as soon as they are delivered or removed; those
///   left when the queue is freed are destroyed then.
///
/// The producer's and the consumer's fields sit on separate cache lines, so
/// that in steady state the sides share, per element, only the slot and the
/// `written` index.
final class SPSCQueue<Element>: @unchecked Sendable {
    /// How many elements the consumer delivers between two publications of
    /// `read`: often enough that a producer finding its ring full sees the
    /// room a long drain has made, rarely enough to cost nothing per element.
    static var publishInterval: Int { 256 }

    private let beforeProducer = CacheLinePadding()

    // Producer side, written per element by the producer only. Atomics with
    // relaxed ordering where only the producer reads them: a `let` atomic
    // compiles to a plain load or store, where a stored `var` of a class would
    // be checked for exclusive access at run time on every push. These
    // three are the producer's private storage, not synchronisation, so they
    // stay plain `Atomic`s outside the sync-point seam; `written`, `read` and
    // each ring's `end` are what the two sides share, and go through it.

    /// Elements pushed so far: stored by the producer with release ordering
    /// after each element, loaded by the consumer with acquire ordering.
    private let written = SyncAtomic<Int>(0)
    /// The element number at which the producer's ring may be full: below
    /// it, a push needs no check of `read`.
    private let producerLimit: Atomic<Int>
    private let producerSlots: Atomic<UnsafeMutablePointer<Element>>
    private let producerMask: Atomic<Int>
    /// The ring the producer writes; changed only when it links a new one.
    private var producerRing: SPSCQueueRing<Element>

    private let betweenSides = CacheLinePadding()

    // Consumer side.

    /// Elements removed so far: stored by the consumer with release ordering
    /// once per run, loaded by the producer (acquire) only when its ring may
    /// be full.
    private let read = SyncAtomic<Int>(0)
    /// The ring the consumer reads; changed when it follows a link.
    private var consumerRing: SPSCQueueRing<Element>

    private let afterConsumer = CacheLinePadding()

    /// - Parameter minimumCapacity: Slots of the first ring, rounded up to a
    ///   power of two (at least 1).
    init(minimumCapacity: Int = 16) {
        var capacity = 1
        while capacity < minimumCapacity {
            capacity <<= 1
        }
        let ring = SPSCQueueRing<Element>(capacity: capacity, start: 0)
        producerRing = ring
        consumerRing = ring
        producerLimit = Atomic(capacity)
        producerSlots = Atomic(ring.slots)
        producerMask = Atomic(ring.mask)
    }

    deinit {
        removeAvailable()
    }

    // MARK: Producer

    /// Appends a copy of `element`. Producer only.
    ///
    /// Never inlined, on purpose: in unspecialised code a caller would need
    /// `Element`'s metadata (for an `Observer.Element`, an associated-type
    /// lookup) to copy the element, whereas this method reads it from its own
    /// instance.
    @inline(never)
    func push(_ element: Element) {
        let index = written.load(ordering: .relaxed)
        if index == producerLimit.load(ordering: .relaxed) {
            makeRoom(at: index)
        }
        (producerSlots.load(ordering: .relaxed) + (index & producerMask.load(ordering: .relaxed)))
            .initialize(to: element)
        written.store(index &+ 1, ordering: .releasing)
    }

    /// The producer reached its limit: either the consumer has made room
    /// since (move the limit), or the ring is full (link a larger one).
    @inline(never)
    private func makeRoom(at index: Int) {
        let ring = producerRing
        let capacity = ring.mask + 1
        let limit = max(read.load(ordering: .acquiring), ring.start) + capacity
        if index < limit {
            producerLimit.store(limit, ordering: .relaxed)
            return
        }
        let larger = SPSCQueueRing<Element>(capacity: capacity * 2, start: index)
        ring.next = larger
        // Publishes `next` with the end; the consumer reads `next` only
        // after loading this end.
        ring.end.store(index, ordering: .releasing)
        producerRing = larger
        producerSlots.store(larger.slots, ordering: .relaxed)
        producerMask.store(larger.mask, ordering: .relaxed)
        producerLimit.store(index + larger.mask + 1, ordering: .relaxed)
    }

    /// Slots of the ring the producer writes now (a test seam: growth).
    var producerCapacity: Int {
        producerMask.load(ordering: .relaxed) + 1
    }

    // MARK: Consumer

    /// Whether the consumer has removed every element pushed so far. Consumer only.
    var isEmpty: Bool {
        read.load(ordering: .relaxed) == written.load(ordering: .acquiring)
    }

    /// Hands every element pushed so far to `deliver`, oldest first, and
    /// destroys it; before each element asks `stop`, and once that says
    /// `true` leaves the rest queued. Consumer only.
    ///
    /// Elements are passed from where they lie and destroyed together after
    /// each run, rather than moved out one by one. (The `observe(on:)` sink
    /// writes this loop itself with `published`, `nextRun` and `finishRun`,
    /// so that its per-element calls are direct, not through closures.)
    ///
    /// - Returns: `true` if it delivered everything it found (elements
    ///   pushed meanwhile, even by `deliver`, may be queued), `false` if
    ///   `stop` ended it.
    func deliverAvailable(stoppingWhen stop: () -> Bool, to deliver: (Element) -> Void) -> Bool {
        let available = published
        while true {
            let (first, count) = nextRun(upTo: available)
            if count == 0 {
                return true
            }
            var delivered = 0
            while delivered != count {
                if stop() {
                    break
                }
                deliver(first[delivered])
                delivered &+= 1
            }
            finishRun(first, delivered: delivered)
            if delivered != count {
                return false
            }
        }
    }

    /// How many elements the producer has published: the bound for
    /// `nextRun(upTo:)`. Consumer only (an acquire load).
    @inline(__always)
    var published: Int {
        written.load(ordering: .acquiring)
    }

    /// The next run of elements to read in place: contiguous slots from the
    /// consumer's position, at most up to element number `available` and
    /// `publishInterval` long; `count` is 0 when the consumer has reached
    /// `available`. Follows (and frees) a finished ring. Consumer only; the
    /// caller then calls `finishRun(_:delivered:)` with how many of them it
    /// consumed, before the next `nextRun`.
    func nextRun(upTo available: Int) -> (first: UnsafeMutablePointer<Element>, count: Int) {
        let index = read.load(ordering: .relaxed)
        var ring = consumerRing
        if index == available {
            return (ring.slots, 0)
        }
        var end = ring.end.load(ordering: .acquiring)
        if index == end {
            ring = followLink(from: ring)
            end = ring.end.load(ordering: .acquiring)
        }
        let count = runLength(from: index, to: available, end: end, mask: ring.mask)
        return (ring.slots + (index & ring.mask), count)
    }

    /// The first `delivered` elements of the run at `first` were consumed:
    /// destroys them and publishes the room to the producer. Consumer only.
    @inline(__always)
    func finishRun(_ first: UnsafeMutablePointer<Element>, delivered: Int) {
        first.deinitialize(count: delivered)
        read.store(read.load(ordering: .relaxed) &+ delivered, ordering: .releasing)
    }

    /// Destroys every element pushed so far, undelivered. Consumer only.
    func removeAvailable() {
        let available = written.load(ordering: .acquiring)
        var index = read.load(ordering: .relaxed)
        var ring = consumerRing
        var end = ring.end.load(ordering: .acquiring)
        while index != available {
            if index == end {
                ring = followLink(from: ring)
                end = ring.end.load(ordering: .acquiring)
            }
            let run = runLength(from: index, to: available, end: end, mask: ring.mask)
            (ring.slots + (index & ring.mask)).deinitialize(count: run)
            index &+= run
        }
        read.store(index, ordering: .releasing)
    }

    /// Elements from `index` up to the first of: `available`, the ring's
    /// `end`, the ring's wrap-around point and the publication interval.
    @inline(__always)
    private func runLength(from index: Int, to available: Int, end: Int, mask: Int) -> Int {
        // Nested two-argument `min`s: the variadic one builds an array.
        min(min(available &- index, end &- index), min(mask &+ 1 &- (index & mask), Self.publishInterval))
    }

    /// Leaves `ring`, all of whose elements are gone, for the ring the
    /// producer linked after it; `ring` is freed once the caller drops it.
    @inline(never)
    private func followLink(from ring: SPSCQueueRing<Element>) -> SPSCQueueRing<Element> {
        guard let next = ring.next else {
            preconditionFailure("SPSCQueue: a ring ended without a successor")
        }
        consumerRing = next
        return next
    }
}

/// One ring of an `SPSCQueue`: a circular array of `mask + 1` slots.
final class SPSCQueueRing<Element>: @unchecked Sendable {
    let slots: UnsafeMutablePointer<Element>
    let mask: Int
    /// The number of the first element pushed into this ring.
    let start: Int
    /// The number of the first element not in this ring: `Int.max` while
    /// the producer writes here, then where it moved on. Stored (release) by
    /// the producer after `next`.
    let end = SyncAtomic<Int>(.max)
    /// The ring the producer moved on to. Written once by the producer
    /// before `end`; read by the consumer after it loaded `end`.
    var next: SPSCQueueRing<Element>?

    init(capacity: Int, start: Int) {
        slots = .allocate(capacity: capacity)
        mask = capacity - 1
        self.start = start
    }

    /// Frees the slots; the queue has destroyed the elements.
    deinit {
        slots.deallocate()
    }
}

/// 128 bytes that keep the fields around them off each other's cache lines
/// (adjacent-line prefetching pairs 64-byte lines).
struct CacheLinePadding {
    private let words: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64,
                        UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) =
        (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
}
