/// A FIFO queue on a circular buffer that keeps its capacity.
///
/// Once it has grown to the largest backlog seen, appending and removing
/// allocate nothing: this is what lets `observe(on:)` deliver elements without
/// allocating per element. A class, so that the queue a producer fills and
/// the batch a drain empties can trade contents under a lock
/// (`exchangeContents(with:)`) while both stay `let` properties of their
/// owner. Not thread-safe: the owner synchronises.
///
/// (The library depends on nothing beyond the toolchain, so this small ring
/// stands in for swift-collections' `Deque`.)
final class RingBuffer<Element> {
    private var storage: UnsafeMutablePointer<Element>
    /// Always a power of two, so that wrapping is a mask.
    private var capacity: Int
    private var head = 0
    private(set) var count = 0

    init(minimumCapacity: Int = 16) {
        var capacity = 1
        while capacity < minimumCapacity {
            capacity <<= 1
        }
        self.capacity = capacity
        storage = .allocate(capacity: capacity)
    }

    deinit {
        removeAll()
        storage.deallocate()
    }

    var isEmpty: Bool {
        count == 0
    }

    /// Appends a copy of `element`.
    ///
    /// Never inlined, on purpose: in unspecialised code the caller would need
    /// `Element`'s metadata (for an `Observer.Element`, an associated-type
    /// lookup per call) to make room for a temporary copy, whereas this
    /// method reads it from its own instance.
    @inline(never)
    func append(_ element: Element) {
        if count == capacity {
            grow()
        }
        // Wrapping arithmetic: the values cannot overflow (both are below
        // `capacity`), and the checks would cost a branch each per element.
        (storage + ((head &+ count) & (capacity &- 1))).initialize(to: element)
        count &+= 1
    }

    /// Removes and returns the first element.
    ///
    /// Not `popFirst() -> Element?`: an optional of a generic element costs a
    /// metadata lookup per call in unspecialised code.
    ///
    /// - Precondition: the buffer is not empty (checked in debug builds).
    @inline(__always)
    func removeFirst() -> Element {
        assert(count > 0, "removeFirst() on an empty RingBuffer")
        let element = (storage + head).move()
        head = (head + 1) & (capacity - 1)
        count -= 1
        return element
    }

    /// Hands every element, oldest first, to `deliver`, then empties the
    /// buffer (keeping its capacity). Before each element it asks `stop`;
    /// once that says `true`, the remaining elements are dropped undelivered.
    ///
    /// Elements are passed from where they lie and destroyed together at the
    /// end, rather than moved out one by one.
    @inline(__always)
    func deliverAll(stoppingWhen stop: () -> Bool, to deliver: (Element) -> Void) {
        var index = head
        var remaining = count
        while remaining > 0 {
            if stop() {
                break
            }
            deliver((storage + index).pointee)
            index = (index &+ 1) & (capacity &- 1)
            remaining -= 1
        }
        removeAll()
    }

    /// Empties the buffer and keeps its capacity.
    func removeAll() {
        let firstPart = min(count, capacity - head)
        (storage + head).deinitialize(count: firstPart)
        storage.deinitialize(count: count - firstPart)
        head = 0
        count = 0
    }

    /// Trades contents (elements and capacity) with `other`, in constant time.
    ///
    /// Plain reads and writes, not `swap(&storage, &other.storage)`: an
    /// `inout` access to another instance's property would make the compiler
    /// check every access to these properties for exclusivity at run time
    /// (`swift_beginAccess`), four times per `append`.
    func exchangeContents(with other: RingBuffer<Element>) {
        let storage = self.storage
        let capacity = self.capacity
        let head = self.head
        let count = self.count
        self.storage = other.storage
        self.capacity = other.capacity
        self.head = other.head
        self.count = other.count
        other.storage = storage
        other.capacity = capacity
        other.head = head
        other.count = count
    }

    private func grow() {
        let newCapacity = capacity * 2
        let newStorage = UnsafeMutablePointer<Element>.allocate(capacity: newCapacity)
        let firstPart = min(count, capacity - head)
        newStorage.moveInitialize(from: storage + head, count: firstPart)
        (newStorage + firstPart).moveInitialize(from: storage, count: count - firstPart)
        storage.deallocate()
        storage = newStorage
        capacity = newCapacity
        head = 0
    }
}
