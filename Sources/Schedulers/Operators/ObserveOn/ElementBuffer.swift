/// A growable buffer of elements that keeps its storage when emptied, held
/// in a chain of segments each well under 1 KB.
///
/// `observe(on:)` fills one with upstream's elements and empties it whole in
/// a drain (it never removes elements one by one). Once its chain holds the
/// largest backlog seen, appending and emptying allocate nothing: this is
/// what lets `observe(on:)` deliver elements without allocating per element.
///
/// Why segments rather than one array that doubles: growing never copies an
/// element, and, above all, the buffer never asks the allocator for a block
/// of 1 KB or more while elements flow (unless one element alone takes that
/// much). glibc's allocator merges every small block freed since its last
/// merge before it serves such a request; after a busy `DispatchQueue` that
/// is hundreds of thousands of blocks, tens of ms charged to whichever
/// request comes first. A doubling array would make that request from inside
/// the flood, on the producer's thread (Performance.md, "After a busy queue").
/// A segment holds `firstSegmentBytes` of elements for the first segment
/// (most subscriptions never need more) and `segmentBytes` for the others,
/// and at least one element; a segment is never freed before the buffer is
/// released, so a later, deeper backlog reuses the chain and only lengthens
/// it.
///
/// Why the segments outlive the buffer: a new subscription's buffer starts
/// empty, and the flood it receives would grow its chain again with one
/// allocation per segment, on the producer's thread, and free the chain when
/// it ends. After a busy queue any of those calls can be the one that makes
/// glibc merge the hundreds of thousands of small blocks the queue freed
/// (`malloc_consolidate`, tens of ms), or the free of a chain large enough to
/// make it merge and trim the heap (Performance.md, "After a busy queue").
/// So a released buffer gives its chain to `ElementSegmentPool`, and a buffer
/// takes its segments from there first: once the process's buffers have
/// grown to its usual backlog, elements flow without any allocator call,
/// whichever subscription carries them. Segments of an element type that
/// fits neither pooled size (`ElementSegmentPool.pools(_:)`) are allocated
/// and freed by the buffer itself.
///
/// A value holding pointers into its storage, so that it lives inline in
/// its owner (no object of its own) and two of them trade contents by
/// swapping. It owns its storage: its owner calls `release(of:)` exactly
/// once and never copies it (a copy would share the storage). Storage is
/// allocated by the first append, not before: a buffer that never receives
/// an element costs no allocation. Not thread-safe: the owner synchronises.
///
/// Not generic: its methods are, and every call on one buffer must name the
/// same element type (its owner's, which is fixed). The library's generic code
/// runs unspecialised, and a generic struct's own metadata is a run-time
/// lookup in the metadata cache wherever a call needs it (calling a method
/// that is not inlined, swapping two buffers, destroying one): hundreds of
/// instructions each, several times per subscription. This type's metadata is
/// static, and a generic method receives `Element`'s metadata from its caller,
/// which has it at hand.
///
/// Its methods are unsafe to call (`@unsafe`): memory safety rests on the
/// owner's keeping the contract above (one element type, no copies,
/// `release(of:)` once), which the compiler cannot check. Its one owner is
/// `ObserveOnQueue`. Holding one is safe (`@safe`): its storage is private.
/// Two `ContiguousArray<Element>` in its place would be safe, but called
/// through unspecialised generic code they cost far more instructions per
/// element on `observeOn.throughput/fast-path` (Performance.md, "observeOn").
///
/// A segment is one raw allocation: a header of two words (the next
/// segment's address or zero, then the number of slots), then the slots,
/// at the header's size rounded up to `Element`'s alignment and bound to
/// `Element`. The header is only ever read and written as raw bytes of
/// trivial types.
@safe
struct ElementBuffer {
    /// Bytes of elements in the first segment: 14 `Int`s; with the header,
    /// a request of 128 bytes, kept small because for most subscriptions it
    /// is the only storage.
    static let firstSegmentBytes = 112
    /// Bytes of elements in every later segment: 64 `Int`s; with the header,
    /// a request of 528 bytes, well below glibc's 1 KB.
    static let segmentBytes = 512
    /// The header's size: the next segment's address and the slot count.
    static let headerBytes = 16

    /// The first segment of the chain; `nil` until the first append.
    private var first: UnsafeMutableRawPointer?
    /// The segment being filled; `nil` when the buffer is empty.
    private var current: UnsafeMutableRawPointer?
    /// The next free slot of `current`; equal to `end` when it is full (and
    /// both `nil` when there is no `current`).
    private var free: UnsafeMutableRawPointer?
    /// One past `current`'s last slot.
    private var end: UnsafeMutableRawPointer?
    private(set) var count = 0

    /// An empty buffer without storage.
    init() {}

    /// Appends a copy of `element`.
    ///
    /// Always inlined, like every method here that runs per element, so that
    /// `Element` comes from the caller's context (for `ObserveOnQueue`, its
    /// own metadata) instead of being passed through a call.
    ///
    /// The copy is one call through `Element`'s value witnesses whatever the
    /// element type. A trivial type (no references, nothing to release:
    /// `Int`, `Double`, a struct of them) is stored with an assignment, which
    /// for such a type is a plain copy of its bytes and needs no prior value
    /// in the slot. Any other type is copied from where it lies with
    /// `initializeMemory(as:repeating:count:)`. `initialize(to:)` would cost
    /// both a copy into a temporary on the stack (space the caller allocates
    /// at run time, by the type's size) and a second copy out of it, behind a
    /// call the unspecialised code does not inline.
    @inline(__always)
    @unsafe
    mutating func append<Element>(_ element: Element) {
        // unsafe: only the two addresses are compared.
        if unsafe free == end {
            // unsafe: the caller's `Element` is this buffer's one element type.
            unsafe advance(Element.self)
        }
        // unsafe: `free` lies before `end` in `current`'s slots, which are bound to `Element`; the slot is uninitialised.
        let slot = unsafe free.unsafelyUnwrapped.assumingMemoryBound(to: Element.self)
        if _isPOD(Element.self) {
            // unsafe: assigning a trivial type over an uninitialised slot is a plain copy of its bytes.
            unsafe slot.pointee = element
        } else {
            // unsafe: the slot is uninitialised memory of `Element`'s size and alignment.
            unsafe UnsafeMutableRawPointer(slot).initializeMemory(as: Element.self, repeating: element, count: 1)
        }
        // unsafe: the next slot, or `end`.
        unsafe free = UnsafeMutableRawPointer(slot + 1)
        count &+= 1
    }

    /// Hands every element, oldest first, to `deliver`, then empties the
    /// buffer (keeping its segments). Before each element it asks `stop`;
    /// once that says `true`, the remaining elements are dropped undelivered.
    ///
    /// Elements are passed from where they lie and destroyed together at the
    /// end, rather than moved out one by one. The buffer's fields are read
    /// once, before the loop: `deliver` is opaque, and a field read inside
    /// the loop would be reloaded from memory after every call.
    @inline(__always)
    @unsafe
    mutating func deliverAll<Element>(stoppingWhen stop: () -> Bool, to deliver: (Element) -> Void) {
        // unsafe: a copy of the address of the first segment.
        guard var segment = unsafe first else {
            return
        }
        var remaining = count
        delivering: while remaining > 0 {
            // unsafe: the chain's segments hold `count` initialised elements in order, each filled before the next.
            let slots = unsafe Self.slots(of: segment, Element.self)
            // unsafe: a full segment's slot count, or what is left in the last one.
            let filled = min(remaining, unsafe Self.slotCount(of: segment))
            // unsafe: one past the segment's last initialised element.
            let end = unsafe slots + filled
            // unsafe: a copy of the pointer to the segment's first element.
            var next = unsafe slots
            // unsafe: `next` walks the segment's initialised elements only, and `deliver` gets a copy.
            while unsafe next != end {
                if stop() {
                    break delivering
                }
                // unsafe: `next` is before `end`, so it points to an initialised element.
                unsafe deliver(next.pointee)
                // unsafe: moves to the next element, or to `end`.
                unsafe next += 1
            }
            remaining &-= filled
            if remaining == 0 {
                break
            }
            // unsafe: elements remain, so a later segment holds them.
            unsafe segment = Self.nextSegment(of: segment).unsafelyUnwrapped
        }
        // unsafe: this buffer's own elements, of the caller's `Element`, as in every call.
        unsafe removeAll(of: Element.self)
    }

    /// Empties the buffer and keeps its segments: the next append fills the
    /// first segment again.
    @inline(__always)
    @unsafe
    mutating func removeAll<Element>(of _: Element.Type) {
        if !_isPOD(Element.self) {
            // unsafe: the caller's `Element` is this buffer's one element type.
            unsafe destroyElements(Element.self)
        }
        count = 0
        // unsafe: forgets the position only; the segments stay in the chain from `first`.
        unsafe current = nil
        // unsafe: as above; `free == end` sends the next append to `advance`, which restarts at `first`.
        unsafe free = nil
        // unsafe: as above.
        unsafe end = nil
    }

    /// Destroys the elements and gives every segment back (to
    /// `ElementSegmentPool`, or to the allocator when `Element` is not
    /// pooled); the buffer is empty and without storage afterwards. Its
    /// owner calls this once, when it is done with the buffer.
    @unsafe
    mutating func release<Element>(of _: Element.Type) {
        // unsafe: this buffer's own elements, of the caller's `Element`, as in every call.
        unsafe removeAll(of: Element.self)
        if ElementSegmentPool.pools(Element.self) {
            // unsafe: a copy of the address of the first segment.
            if let chain = unsafe first {
                // unsafe: the chain's segments are the pool's sizes (`newSegment`), empty now, and nothing reaches them through this buffer again (below).
                unsafe ElementSegmentPool.shared.takeBack(chain: chain)
            }
            // unsafe: the chain now belongs to the pool, so nothing reaches it again through this buffer.
            unsafe first = nil
            return
        }
        // unsafe: a copy of the address of the first segment.
        var segment = unsafe first
        // unsafe: walks the chain, each segment allocated by `advance`, empty now, read before it is freed and freed once.
        while let freed = unsafe segment {
            // unsafe: as above.
            unsafe segment = Self.nextSegment(of: freed)
            // unsafe: as above.
            unsafe freed.deallocate()
        }
        // unsafe: the freed chain is dropped, so nothing reaches it again.
        unsafe first = nil
    }

    /// Destroys the `count` elements, segment by segment; `count` is
    /// unchanged.
    @inline(never)
    @unsafe
    private func destroyElements<Element>(_: Element.Type) {
        var remaining = count
        // unsafe: a copy of the address of the first segment.
        var segment = unsafe first
        // unsafe: the chain's segments hold `count` initialised elements in order, each filled before the next.
        while remaining > 0, let holding = unsafe segment {
            // unsafe: as above.
            let filled = min(remaining, unsafe Self.slotCount(of: holding))
            // unsafe: the segment's first `filled` slots hold initialised elements of `Element`.
            unsafe Self.slots(of: holding, Element.self).deinitialize(count: filled)
            remaining &-= filled
            // unsafe: as above.
            unsafe segment = Self.nextSegment(of: holding)
        }
    }

    /// Called when `current` is full or the buffer is empty: a call per
    /// segment filled, not per element. Moves to the next segment of the
    /// chain, allocating it when the chain ends there.
    @inline(never)
    @unsafe
    private mutating func advance<Element>(_: Element.Type) {
        let segment: UnsafeMutableRawPointer
        // unsafe: a copy of the address of the segment being filled.
        if let full = unsafe current {
            // unsafe: `full` is a segment of this chain.
            if let kept = unsafe Self.nextSegment(of: full) {
                unsafe segment = kept  // unsafe: a copy of a segment's address.
            } else {
                // unsafe: a new segment for this buffer's one element type.
                unsafe segment = Self.newSegment(Element.self, first: false)
                // unsafe: `full`'s header is two words of raw bytes, written as a trivial type.
                unsafe full.storeBytes(of: segment, as: UnsafeMutableRawPointer?.self)
            }
            // unsafe: a copy of the address of the first segment.
        } else if let kept = unsafe first {
            unsafe segment = kept  // unsafe: a copy of a segment's address.
        } else {
            // unsafe: a new segment for this buffer's one element type.
            unsafe segment = Self.newSegment(Element.self, first: true)
            // unsafe: the chain starts here.
            unsafe first = segment
        }
        // unsafe: the address of a segment of this chain.
        unsafe current = segment
        // unsafe: the segment's slots, bound to `Element` when it was allocated.
        let slots = unsafe Self.slots(of: segment, Element.self)
        // unsafe: the first slot.
        unsafe free = UnsafeMutableRawPointer(slots)
        // unsafe: one past the last slot.
        unsafe end = UnsafeMutableRawPointer(slots + Self.slotCount(of: segment))
    }

    /// A segment for the chain's first place (`first`) or a later one, its
    /// slots bound to `Element`, linked to nothing: from the pool when
    /// `Element` is pooled, else allocated here.
    @unsafe
    private static func newSegment<Element>(_: Element.Type, first: Bool) -> UnsafeMutableRawPointer {
        guard ElementSegmentPool.pools(Element.self) else {
            // unsafe: a new segment for the caller's element type.
            return unsafe allocateSegment(Element.self, bytes: first ? firstSegmentBytes : segmentBytes)
        }
        // unsafe: a free segment of the pool, `poolSegmentBytes(first:)` long at its alignment; this buffer owns it now.
        let segment = unsafe ElementSegmentPool.shared.take(first: first)
        let slotCount = (ElementSegmentPool.segmentBytes(first: first) - headerBytes) / MemoryLayout<Element>.stride
        // unsafe: the header's first word, raw bytes of a trivial type inside the segment.
        unsafe segment.storeBytes(of: nil, as: UnsafeMutableRawPointer?.self)
        // unsafe: the header's second word, likewise.
        unsafe segment.storeBytes(of: slotCount, toByteOffset: MemoryLayout<Int>.stride, as: Int.self)
        // unsafe: the slots lie inside the segment at 16 bytes, `Element`'s alignment or a multiple of it (`pools`); holding no initialised value, they may be bound to a new type.
        unsafe (segment + headerBytes).bindMemory(to: Element.self, capacity: slotCount)
        return unsafe segment  // unsafe: hands the segment to its one owner.
    }

    /// A new segment with room for `bytes` of `Element`s (at least one), its
    /// slots bound to `Element`, linked to nothing.
    @unsafe
    private static func allocateSegment<Element>(_: Element.Type, bytes: Int) -> UnsafeMutableRawPointer {
        let stride = MemoryLayout<Element>.stride
        let slotCount = max(1, bytes / stride)
        let offset = slotsOffset(Element.self)
        let segment = UnsafeMutableRawPointer.allocate(
            byteCount: offset + slotCount * stride,
            alignment: max(MemoryLayout<Element>.alignment, MemoryLayout<Int>.alignment))
        // unsafe: the header's first word, raw bytes of a trivial type inside the allocation.
        unsafe segment.storeBytes(of: nil, as: UnsafeMutableRawPointer?.self)
        // unsafe: the header's second word, likewise.
        unsafe segment.storeBytes(of: slotCount, toByteOffset: MemoryLayout<Int>.stride, as: Int.self)
        // unsafe: the slots lie inside the allocation, at `Element`'s alignment; bound before any use.
        unsafe (segment + offset).bindMemory(to: Element.self, capacity: slotCount)
        return unsafe segment  // unsafe: hands the new allocation to its one owner.
    }

    /// Where a segment's slots start: after the header, at `Element`'s
    /// alignment (a power of two).
    @inline(__always)
    private static func slotsOffset<Element>(_: Element.Type) -> Int {
        max(headerBytes, MemoryLayout<Element>.alignment)
    }

    /// The slots of `segment`, bound to `Element` since its allocation.
    @inline(__always)
    @unsafe
    private static func slots<Element>(of segment: UnsafeMutableRawPointer, _: Element.Type) -> UnsafeMutablePointer<Element> {
        // unsafe: `allocateSegment` bound the slots, at this offset, to `Element` (the buffer's one element type).
        unsafe (segment + slotsOffset(Element.self)).assumingMemoryBound(to: Element.self)
    }

    /// How many slots `segment` has.
    @inline(__always)
    @unsafe
    private static func slotCount(of segment: UnsafeMutableRawPointer) -> Int {
        // unsafe: the header's second word, written by `allocateSegment`.
        unsafe segment.load(fromByteOffset: MemoryLayout<Int>.stride, as: Int.self)
    }

    /// The segment after `segment` in the chain, if any.
    @inline(__always)
    @unsafe
    static func nextSegment(of segment: UnsafeMutableRawPointer) -> UnsafeMutableRawPointer? {
        // unsafe: the header's first word, written by `allocateSegment` and `advance`.
        unsafe segment.load(as: UnsafeMutableRawPointer?.self)
    }
}

/// The free segments of every `ElementBuffer` of the process, kept for the
/// next buffer that grows (see `ElementBuffer`, "Why the segments outlive the
/// buffer").
///
/// Two sizes, the buffer's two: `segmentBytes(first: true)` for a chain's
/// first segment and `segmentBytes(first: false)` for the others, both
/// allocated at 16-byte alignment. A size keeps at most
/// `maximumSegments(first:)` free segments, so the memory kept for buffers
/// that have ended is bounded: 128 KB of first segments and 4.1 MB of later
/// ones, room for a backlog of about 520,000 `Int`s. A chain given back
/// beyond that bound is freed.
///
/// Rules the buffer keeps, on which the pool's memory safety rests (so its
/// methods are `@unsafe`): a segment given back holds no initialised element,
/// is of the pool's size for its place in the chain, and is never used again
/// by the buffer that gave it back; a segment taken belongs to the taker
/// alone until it gives it back. Free segments are linked through their
/// header's first word, as in a chain; the pool writes nothing else.
///
/// Thread-safe: the free lists are guarded by `lock`, taken for a push, a
/// pop or a splice, never while allocating or freeing. The pool is the
/// innermost lock of the library: nothing else is taken while it is held.
@safe
final class ElementSegmentPool: @unchecked Sendable {
    /// The process's pool.
    static let shared = ElementSegmentPool()

    /// Whether buffers of `Element` take their segments from the pool: its
    /// alignment is at most 16 (the segments') and at least one element fits
    /// a first segment.
    @inline(__always)
    static func pools<Element>(_: Element.Type) -> Bool {
        MemoryLayout<Element>.alignment <= 16
            && MemoryLayout<Element>.stride <= segmentBytes(first: true) - ElementBuffer.headerBytes
    }

    /// Bytes of a pooled segment, header included: 128 for a chain's first
    /// place, 528 for the others (the sizes of `ElementBuffer`'s segments of
    /// `Int`s, below glibc's 1 KB).
    @inline(__always)
    static func segmentBytes(first: Bool) -> Int {
        ElementBuffer.headerBytes + (first ? ElementBuffer.firstSegmentBytes : ElementBuffer.segmentBytes)
    }

    /// The most free segments kept of each size.
    static func maximumSegments(first: Bool) -> Int {
        first ? 1_024 : 8_192
    }

    private let lock = Lock()
    /// The free first segments, linked through their headers; guarded by `lock`.
    private var freeFirst: UnsafeMutableRawPointer?
    private var freeFirstCount = 0
    /// The free later segments, likewise.
    private var freeLater: UnsafeMutableRawPointer?
    private var freeLaterCount = 0

    private init() {}

    /// How many free segments of each size the pool holds.
    var freeCounts: (first: Int, later: Int) {
        lock.withLock { (freeFirstCount, freeLaterCount) }
    }

    /// A free segment of the size for a chain's first place (`first`) or a
    /// later one, or a new one when there is none. Its contents are
    /// unspecified: the taker writes the header and binds the slots.
    @unsafe
    func take(first: Bool) -> UnsafeMutableRawPointer {
        // unsafe: a segment popped under `lock`, or nothing (see inside).
        let taken: UnsafeMutableRawPointer? = unsafe lock.withLock {
            // unsafe: the head of a free list, guarded by `lock`.
            guard let head = unsafe first ? freeFirst : freeLater else {
                return nil
            }
            // unsafe: `head` is a free segment whose first header word links the list.
            let next = unsafe ElementBuffer.nextSegment(of: head)
            if first {
                // unsafe: pops `head`, guarded by `lock`.
                unsafe freeFirst = next
                freeFirstCount -= 1
            } else {
                // unsafe: as above.
                unsafe freeLater = next
                freeLaterCount -= 1
            }
            return unsafe head  // unsafe: the popped segment now belongs to the taker alone.
        }
        // unsafe: a popped segment, or nothing.
        if let taken = unsafe taken {
            return unsafe taken  // unsafe: as above.
        }
        return UnsafeMutableRawPointer.allocate(byteCount: Self.segmentBytes(first: first), alignment: 16)
    }

    /// Takes back a buffer's chain: `chain` is its first segment, of the
    /// first size, linked through the headers to the others, of the later
    /// size. What exceeds `maximumSegments(first:)` is freed: the first
    /// segment alone, and the later ones all together when they do not all
    /// fit.
    @unsafe
    func takeBack(chain: UnsafeMutableRawPointer) {
        // unsafe: the chain's links, written by `ElementBuffer.advance`.
        let rest = unsafe ElementBuffer.nextSegment(of: chain)
        // unsafe: `rest` and the segments after it, walked before any is handed on.
        var last = unsafe rest
        var restCount = 0
        // unsafe: as above.
        while let segment = unsafe last {
            restCount += 1
            // unsafe: as above.
            guard let next = unsafe ElementBuffer.nextSegment(of: segment) else {
                break
            }
            unsafe last = next  // unsafe: a copy of a segment's address.
        }
        let (keptFirst, keptRest): (Bool, Bool) = lock.withLock {
            let keepFirst = freeFirstCount < Self.maximumSegments(first: true)
            if keepFirst {
                // unsafe: links `chain` in front of the free first segments, guarded by `lock`.
                unsafe chain.storeBytes(of: freeFirst, as: UnsafeMutableRawPointer?.self)
                // unsafe: as above.
                unsafe freeFirst = chain
                freeFirstCount += 1
            }
            let keepRest = restCount > 0 && freeLaterCount + restCount <= Self.maximumSegments(first: false)
            // unsafe: the walked chain's first and last later segments.
            if keepRest, let rest = unsafe rest, let last = unsafe last {
                // unsafe: splices the later segments in front of the free ones, guarded by `lock`.
                unsafe last.storeBytes(of: freeLater, as: UnsafeMutableRawPointer?.self)
                // unsafe: as above.
                unsafe freeLater = rest
                freeLaterCount += restCount
            }
            return (keepFirst, keepRest)
        }
        if !keptRest {
            // unsafe: the later segments the pool did not keep, still linked as in the chain; nothing else reaches them.
            unsafe Self.free(list: rest)
        }
        if !keptFirst {
            // unsafe: the first segment the pool did not keep; nothing else reaches it.
            unsafe chain.deallocate()
        }
    }

    /// Frees every free segment (for tests that count the allocations of a
    /// buffer from an empty pool).
    func releaseAll() {
        // unsafe: both lists, detached under `lock` (see inside).
        let (firstList, laterList): (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) = unsafe lock.withLock {
            // unsafe: detaches both lists, guarded by `lock`; they belong to this call afterwards.
            let lists = unsafe (freeFirst, freeLater)
            // unsafe: as above.
            unsafe freeFirst = nil
            // unsafe: as above.
            unsafe freeLater = nil
            freeFirstCount = 0
            freeLaterCount = 0
            return unsafe lists  // unsafe: as above.
        }
        // unsafe: the detached first segments, which belong to this call alone.
        unsafe Self.free(list: firstList)
        // unsafe: the detached later segments, likewise.
        unsafe Self.free(list: laterList)
    }

    /// Frees the segments linked from `list`, each read before it is freed.
    @unsafe
    private static func free(list: UnsafeMutableRawPointer?) {
        // unsafe: a copy of the list's head.
        var segment = unsafe list
        // unsafe: each segment of the list is read before it is freed, and freed once.
        while let freed = unsafe segment {
            // unsafe: as above.
            unsafe segment = ElementBuffer.nextSegment(of: freed)
            // unsafe: as above.
            unsafe freed.deallocate()
        }
    }
}
