/// A growable buffer of elements that keeps its capacity when emptied.
///
/// `observe(on:)` fills one with upstream's elements and empties it whole in
/// a drain (it never removes elements one by one), so a plain array of slots
/// suffices. Once it has grown to the largest backlog seen, appending and
/// emptying allocate nothing: this is what lets `observe(on:)` deliver
/// elements without allocating per element.
///
/// A value holding a pointer to its storage, so that it lives inline in its
/// owner (no object of its own) and two of them trade contents by swapping.
/// It owns its storage: its owner calls `release(of:)` exactly once and never
/// copies it (a copy would share the storage). Storage is allocated by the
/// first append, not before: a buffer that never receives an element costs no
/// allocation. Not thread-safe: the owner synchronises.
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
/// Two `ContiguousArray<Element>` in its place, safe but called through
/// unspecialised generic code, cost 68% more instructions on
/// `observeOn.throughput/fast-path` (Performance.md, "observeOn").
@safe
struct ElementBuffer {
    private var storage: UnsafeMutableRawPointer?
    private var capacity = 0
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
        if count == capacity {
            grow(Element.self)
        }
        // unsafe: `count < capacity` here, so the slot lies inside the storage, and it is uninitialised.
        let slot = unsafe slots(Element.self) + count
        if _isPOD(Element.self) {
            // unsafe: assigning a trivial type over an uninitialised slot is a plain copy of its bytes.
            unsafe slot.pointee = element
        } else {
            // unsafe: the slot is uninitialised memory of `Element`'s size and alignment.
            unsafe UnsafeMutableRawPointer(slot).initializeMemory(as: Element.self, repeating: element, count: 1)
        }
        count &+= 1
    }

    /// Hands every element, oldest first, to `deliver`, then empties the
    /// buffer (keeping its capacity). Before each element it asks `stop`;
    /// once that says `true`, the remaining elements are dropped undelivered.
    ///
    /// Elements are passed from where they lie and destroyed together at the
    /// end, rather than moved out one by one. The buffer's fields are read
    /// once, before the loop: `deliver` is opaque, and a field read inside
    /// the loop would be reloaded from memory after every call.
    @inline(__always)
    @unsafe
    mutating func deliverAll<Element>(stoppingWhen stop: () -> Bool, to deliver: (Element) -> Void) {
        // unsafe: only the pointer's presence is read.
        guard unsafe storage != nil else {
            return
        }
        // unsafe: the storage holds `count` initialised elements from its start.
        let first = unsafe slots(Element.self)
        // unsafe: one past the last initialised element.
        let end = unsafe first + count
        // unsafe: a copy of the pointer to the first initialised element.
        var next = unsafe first
        // unsafe: `next` walks the initialised elements only, and `deliver` gets a copy.
        while unsafe next != end {
            if stop() {
                break
            }
            // unsafe: `next` is before `end`, so it points to an initialised element.
            unsafe deliver(next.pointee)
            // unsafe: moves to the next element, or to `end`.
            unsafe next += 1
        }
        // unsafe: this buffer's own elements, of the caller's `Element`, as in every call.
        unsafe removeAll(of: Element.self)
    }

    /// Empties the buffer and keeps its capacity.
    @inline(__always)
    @unsafe
    mutating func removeAll<Element>(of _: Element.Type) {
        // unsafe: only the pointer's presence is read.
        if unsafe storage != nil {
            // unsafe: the storage holds exactly `count` initialised elements, of the caller's `Element`.
            unsafe slots(Element.self).deinitialize(count: count)
        }
        count = 0
    }

    /// Destroys the elements and frees the storage; the buffer is empty and
    /// without storage afterwards. Its owner calls this once, in `deinit`.
    @unsafe
    mutating func release<Element>(of _: Element.Type) {
        // unsafe: this buffer's own elements, of the caller's `Element`, as in every call.
        unsafe removeAll(of: Element.self)
        // unsafe: the storage was allocated by `grow`, holds no element now, and is dropped with it.
        unsafe storage?.deallocate()
        // unsafe: the freed pointer is dropped, so nothing reaches it again.
        unsafe storage = nil
        capacity = 0
    }

    /// The storage as slots of `Element`. Only when there is storage.
    @inline(__always)
    private func slots<Element>(_: Element.Type) -> UnsafeMutablePointer<Element> {
        // unsafe: called only with storage, which `grow` bound to `Element` (the owner's one element type).
        unsafe storage!.assumingMemoryBound(to: Element.self)
    }

    /// Called when the buffer is full: a call, but only as often as the
    /// capacity doubles.
    @inline(never)
    private mutating func grow<Element>(_: Element.Type) {
        let newCapacity = capacity == 0 ? 16 : capacity * 2
        let newSlots = UnsafeMutablePointer<Element>.allocate(capacity: newCapacity)
        // unsafe: only the pointer's presence is read.
        if unsafe storage != nil {
            // unsafe: moves the `count` initialised elements into the larger allocation, then frees the old one.
            unsafe newSlots.moveInitialize(from: slots(Element.self), count: count)
            // unsafe: the old allocation, its elements moved out above, freed once.
            unsafe storage?.deallocate()
        }
        // unsafe: the new allocation, now holding the `count` elements, becomes the storage.
        unsafe storage = UnsafeMutableRawPointer(newSlots)
        capacity = newCapacity
    }
}
