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
    mutating func append<Element>(_ element: Element) {
        if count == capacity {
            grow(Element.self)
        }
        let slot = slots(Element.self) + count
        if _isPOD(Element.self) {
            slot.pointee = element
        } else {
            UnsafeMutableRawPointer(slot).initializeMemory(as: Element.self, repeating: element, count: 1)
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
    mutating func deliverAll<Element>(stoppingWhen stop: () -> Bool, to deliver: (Element) -> Void) {
        guard storage != nil else {
            return
        }
        let first = slots(Element.self)
        let end = first + count
        var next = first
        while next != end {
            if stop() {
                break
            }
            deliver(next.pointee)
            next += 1
        }
        removeAll(of: Element.self)
    }

    /// Empties the buffer and keeps its capacity.
    @inline(__always)
    mutating func removeAll<Element>(of _: Element.Type) {
        if storage != nil {
            slots(Element.self).deinitialize(count: count)
        }
        count = 0
    }

    /// Destroys the elements and frees the storage; the buffer is empty and
    /// without storage afterwards. Its owner calls this once, in `deinit`.
    mutating func release<Element>(of _: Element.Type) {
        removeAll(of: Element.self)
        storage?.deallocate()
        storage = nil
        capacity = 0
    }

    /// The storage as slots of `Element`. Only when there is storage.
    @inline(__always)
    private func slots<Element>(_: Element.Type) -> UnsafeMutablePointer<Element> {
        storage.unsafelyUnwrapped.assumingMemoryBound(to: Element.self)
    }

    /// Called when the buffer is full: a call, but only as often as the
    /// capacity doubles.
    @inline(never)
    private mutating func grow<Element>(_: Element.Type) {
        let newCapacity = capacity == 0 ? 16 : capacity * 2
        let newSlots = UnsafeMutablePointer<Element>.allocate(capacity: newCapacity)
        if storage != nil {
            newSlots.moveInitialize(from: slots(Element.self), count: count)
            storage?.deallocate()
        }
        storage = UnsafeMutableRawPointer(newSlots)
        capacity = newCapacity
    }
}
