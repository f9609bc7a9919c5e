/// The time-ordered queue of a `VirtualTimeScheduler`: a binary min-heap.
///
/// Ordered by due time, then by `sequence`, so items due at the same time run
/// in the order they were scheduled (a stable priority queue). Each item knows
/// its index, so a disposed item leaves the heap in O(log n) instead of
/// waiting there until its time comes.
struct VirtualSchedulerQueue<Converter: VirtualTimeConverterType> {
    typealias Item = VirtualSchedulerItem<Converter>

    private let converter: Converter
    private var heap: [Item] = []

    init(converter: Converter) {
        self.converter = converter
    }

    var count: Int { heap.count }

    var first: Item? { heap.first }

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
            swapItems(index, last)
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

    private mutating func swapItems(_ first: Int, _ second: Int) {
        heap.swapAt(first, second)
        heap[first].queueIndex = first
        heap[second].queueIndex = second
    }

    private mutating func siftUp(from start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard precedes(heap[child], heap[parent]) else { return }
            swapItems(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(from start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            guard left < heap.count else { return }
            let right = left + 1
            var smallest = left
            if right < heap.count, precedes(heap[right], heap[left]) {
                smallest = right
            }
            guard precedes(heap[smallest], heap[parent]) else { return }
            swapItems(parent, smallest)
            parent = smallest
        }
    }
}
