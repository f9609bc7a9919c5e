/// The time-ordered queue of a `VirtualTimeScheduler`: a 4-ary min-heap.
///
/// Ordered by due time, then by `sequence`, so items due at the same time run
/// in the order they were scheduled (a stable priority queue). Each item knows
/// its index, so a disposed item leaves the heap in O(log n) instead of
/// waiting there until its time comes. Inserting, removing and popping
/// allocate nothing beyond the heap's storage, which grows by doubling.
///
/// Each slot of the heap keeps a copy of its item's due time and sequence
/// beside the item, so sifting compares slots without reading the items:
/// with a million items queued, reading each compared item's time missed the
/// caches at every comparison. Four children per node halve the levels a
/// sift goes through, and a node's children are next to each other.
/// A sift still writes the index of every item it moves into that item.
///
/// Slots move into a hole (`place(_:at:)`), never with `swapAt`:
/// this code is generic in `Converter`, and called from another module (a
/// test suite's `TestScheduler`, a user's `HistoricalScheduler`) it runs
/// unspecialized, where `MutableCollection.swapAt` goes through the
/// protocol's accessor coroutines, which allocated twice per swap: popping
/// the first of N actions made about 2·log₂N allocations
/// (VirtualTimeAllocationTests holds the count per action constant in N;
/// Performance.md has the figures).
struct VirtualSchedulerQueue<Converter: VirtualTimeConverterType> {
    typealias Item = VirtualSchedulerItem<Converter>

    /// One slot of the heap: an item with a copy of its `time` and `sequence`.
    private struct Entry {
        let time: Converter.VirtualTimeUnit
        let sequence: UInt64
        let item: Item

        init(_ item: Item) {
            time = item.time
            sequence = item.sequence
            self.item = item
        }
    }

    /// Children per node: the children of `i` are `4i + 1 ... 4i + 4`.
    private static var arity: Int { 4 }

    private let converter: Converter
    private var heap: [Entry] = []

    init(converter: Converter) {
        self.converter = converter
    }

    var count: Int { heap.count }

    /// The earliest item. Read with Array's own subscript, not `first`:
    /// unspecialized, `Collection.first` reads through the protocol's accessor
    /// coroutine, which allocated once per call (one allocation per run action).
    var first: Item? { heap.isEmpty ? nil : heap[0].item }

    mutating func insert(_ item: Item) {
        heap.append(Entry(item))
        item.queueIndex = heap.count - 1
        siftUp(from: heap.count - 1)
    }

    mutating func popFirst() -> Item? {
        guard !heap.isEmpty else { return nil }
        return remove(at: 0)
    }

    /// Removes `item` if it is still queued.
    mutating func remove(_ item: Item) {
        guard let index = item.queueIndex, index < heap.count, heap[index].item === item else { return }
        _ = remove(at: index)
    }

    private mutating func remove(at index: Int) -> Item {
        let removed = heap[index].item
        let last = heap.count - 1
        if index != last {
            place(heap[last], at: index)
        }
        heap.removeLast()
        removed.queueIndex = nil
        if index < heap.count {
            // The last entry, now at `index`, goes up if it precedes its new
            // parent, else down (or stays).
            if index > 0, precedes(heap[index], heap[(index - 1) / Self.arity]) {
                siftUp(from: index)
            } else {
                siftDown(from: index)
            }
        }
        return removed
    }

    private func precedes(_ lhs: Entry, _ rhs: Entry) -> Bool {
        switch converter.compareVirtualTime(lhs.time, rhs.time) {
        case .lessThan: return true
        case .greaterThan: return false
        case .equal: return lhs.sequence < rhs.sequence
        }
    }

    /// Stores `entry` at `index` and tells its item so.
    private mutating func place(_ entry: Entry, at index: Int) {
        heap[index] = entry
        entry.item.queueIndex = index
    }

    private mutating func siftUp(from start: Int) {
        var child = start
        let moving = heap[child]
        while child > 0 {
            let parent = (child - 1) / Self.arity
            guard precedes(moving, heap[parent]) else { break }
            place(heap[parent], at: child)
            child = parent
        }
        place(moving, at: child)
    }

    private mutating func siftDown(from start: Int) {
        var parent = start
        let moving = heap[parent]
        let count = heap.count
        while true {
            let firstChild = Self.arity * parent + 1
            guard firstChild < count else { break }
            let end = min(firstChild + Self.arity, count)
            var smallest = firstChild
            var child = firstChild + 1
            while child < end {
                if precedes(heap[child], heap[smallest]) {
                    smallest = child
                }
                child += 1
            }
            guard precedes(heap[smallest], moving) else { break }
            place(heap[smallest], at: parent)
            parent = smallest
        }
        place(moving, at: parent)
    }
}
