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
/// It owns its storage: its owner calls `release()` exactly once and never
/// copies it (a copy would share the storage). Storage is allocated by the
/// first append, not before: a buffer that never receives an element costs no
/// allocation. Not thread-safe: the owner synchronises.
struct ElementBuffer<Element> {
    private var storage: UnsafeMutablePointer<Element>?
    private var capacity = 0
    private(set) var count = 0

    /// An empty buffer without storage.
    init() {}

    var isEmpty: Bool {
        count == 0
    }

    /// Appends a copy of `element`.
    ///
    /// Always inlined, like every method here that runs per element: in
    /// unspecialised code a call to a method of a generic struct passes the
    /// struct's type metadata, which costs a run-time lookup in the metadata
    /// cache per call. Inlined into a method of a generic class
    /// (`ObserveOnQueue.append(_:)`), it finds `Element` in that instance's
    /// own metadata instead.
    @inline(__always)
    mutating func append(_ element: Element) {
        if count == capacity {
            grow()
        }
        (storage.unsafelyUnwrapped + count).initialize(to: element)
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
    mutating func deliverAll(stoppingWhen stop: () -> Bool, to deliver: (Element) -> Void) {
        guard let storage else {
            return
        }
        let end = storage + count
        var next = storage
        while next != end {
            if stop() {
                break
            }
            deliver(next.pointee)
            next += 1
        }
        removeAll()
    }

    /// Empties the buffer and keeps its capacity.
    @inline(__always)
    mutating func removeAll() {
        storage?.deinitialize(count: count)
        count = 0
    }

    /// Destroys the elements and frees the storage; the buffer is empty and
    /// without storage afterwards. Its owner calls this once, in `deinit`.
    mutating func release() {
        removeAll()
        storage?.deallocate()
        storage = nil
        capacity = 0
    }

    /// Called when the buffer is full: a call with a metadata lookup, but
    /// only as often as the capacity doubles.
    @inline(never)
    private mutating func grow() {
        let newCapacity = capacity == 0 ? 16 : capacity * 2
        let newStorage = UnsafeMutablePointer<Element>.allocate(capacity: newCapacity)
        if let storage {
            newStorage.moveInitialize(from: storage, count: count)
            storage.deallocate()
        }
        storage = newStorage
        capacity = newCapacity
    }
}
