/// A FIFO queue on a circular buffer that keeps its capacity.
///
/// Once it has grown to the largest backlog seen, appending and removing
/// allocate nothing: this is what lets `observe(on:)` deliver elements without
/// allocating per element. A class, so two of them can be swapped by
/// reference under a lock. Not thread-safe: the owner synchronises.
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

    @inline(__always)
    func append(_ element: Element) {
        if count == capacity {
            grow()
        }
        (storage + ((head + count) & (capacity - 1))).initialize(to: element)
        count += 1
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

    /// Empties the buffer and keeps its capacity.
    func removeAll() {
        while count > 0 {
            (storage + head).deinitialize(count: 1)
            head = (head + 1) & (capacity - 1)
            count -= 1
        }
        head = 0
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
