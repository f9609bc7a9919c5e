/// The time-ordered queue of a `VirtualTimeScheduler`: a binary min-heap.
///
/// Ordered by due time, then by `sequence`, so items due at the same time run
/// in the order they were scheduled (a stable priority queue). Each item knows
/// its index, so a disposed item leaves the heap in O(log n) instead of
/// waiting there until its time comes. Inserting, removing and popping
/// allocate nothing beyond the heap's storage, which grows by doubling.
///
/// Items move into a hole (`place(_:at:)`), never with `swapAt`: this code
/// is generic in `Converter`, and called from another module (a test suite's
/// `TestScheduler`, a user's `HistoricalScheduler`) it runs unspecialized,
/// where `MutableCollection.swapAt` goes through the protocol's accessor
/// coroutines, which allocated twice per swap: popping the first of N
/// actions made about 2·log₂N allocations (VirtualTimeAllocationTests holds
/// the count per action constant in N; Performance.md has the figures).
struct VirtualSchedulerQueue<Converter: VirtualTimeConverterType> {
    typealias Item = VirtualSchedulerItem<Converter>

    private let converter: Converter
    private var heap: [Item] = []

    init(converter: Converter) {
        self.converter = converter
    }

    var count: Int { heap.count }

    /// The earliest item. Read with Array's own subscript, not `first`:
    /// unspecialized, `Collection.first` reads through the protocol's accessor
    /// coroutine, which allocated once per call (one allocation per run action).
    var first: Item? { heap.isEmpty ? nil : heap[0] }

    mutating func insert(_ item: Item) {
        heap.append(item)
        item.queueIndex = heap.count - 1
        siftUp(from: heap.count - 1)
    }

    mutating func popFirst() -> Item? {
        guard !heap.isEmpty else { return nil }
        return remove(at: 0)
    }

    /// Removes `item` if it is still queued.
    mutating func remove(_ item: Item) {
        guard let index = item.queueIndex, index < heap.count, heap[index] === item else { return }
        _ = remove(at: index)
    }

    private mutating func remove(at index: Int) -> Item {
        let removed = heap[index]
        let last = heap.count - 1
        if index != last {
            place(heap[last], at: index)
        }
        heap.removeLast()
        removed.queueIndex = nil
        if index < heap.count {
            siftDown(from: index)
            siftUp(from: index)
        }
        return removed
    }

    private func precedes(_ lhs: Item, _ rhs: Item) -> Bool {
        switch converter.compareVirtualTime(lhs.time, rhs.time) {
        case .lessThan: return true
        case .greaterThan: return false
        case .equal: return lhs.sequence < rhs.sequence
        }
    }

    /// Stores `entry` at `index` and tells it so.
    private mutating func place(_ entry: Item, at index: Int) {
        heap[index] = entry
        entry.queueIndex = index
    }

    private mutating func siftUp(from start: Int) {
        var child = start
        let moving = heap[child]
        while child > 0 {
            let parent = (child - 1) / 2
            guard precedes(moving, heap[parent]) else { break }
            place(heap[parent], at: child)
            child = parent
        }
        place(moving, at: child)
    }

    private mutating func siftDown(from start: Int) {
        var parent = start
        let moving = heap[parent]
        while true {
            let left = 2 * parent + 1
            guard left < heap.count else { break }
            let right = left + 1
            var smallest = left
            if right < heap.count, precedes(heap[right], heap[left]) {
                smallest = right
            }
            guard precedes(heap[smallest], moving) else { break }
            place(heap[smallest], at: parent)
            parent = smallest
        }
        place(moving, at: parent)
    }
}
