/// What the heap of a `VirtualSchedulerQueue` holds and moves: the part of
/// a queued item that is the same for every converter (its tie-breaking
/// sequence number and its position in the heap).
///
/// Not generic on purpose: the heap is then an array of one concrete class,
/// whose reads, writes and swaps the compiler specializes inside this module.
/// An array of a generic item type, used from another module (a test
/// suite's `TestScheduler`, a user's `HistoricalScheduler`), went through
/// unspecialized `MutableCollection.swapAt`, whose accessor coroutines
/// allocated twice per swap: popping the first of N actions made about
/// 2·log₂N allocations, so allocations per run action grew from 16 at 10³
/// queued actions to 29 at 10⁵ (`scale.virtualTime`, docs/Scale.md).
class VirtualQueueEntry: @unchecked Sendable {
    /// Breaks ties between equal times: lower runs first (scheduling order).
    final var sequence: UInt64 = 0
    /// Position in the scheduler's heap, or `nil` when not queued.
    final var queueIndex: Int?
}

/// The time-ordered queue of a `VirtualTimeScheduler`: a binary min-heap.
///
/// Ordered by due time, then by `sequence`, so items due at the same time run
/// in the order they were scheduled (a stable priority queue). Each item knows
/// its index, so a disposed item leaves the heap in O(log n) instead of
/// waiting there until its time comes. Inserting, removing and popping
/// allocate nothing beyond the heap's storage, which grows by doubling.
struct VirtualSchedulerQueue<Converter: VirtualTimeConverterType> {
    typealias Item = VirtualSchedulerItem<Converter>

    private let converter: Converter
    private var heap: [VirtualQueueEntry] = []

    init(converter: Converter) {
        self.converter = converter
    }

    var count: Int { heap.count }

    var first: Item? {
        guard let entry = heap.first else { return nil }
        return Self.item(entry)
    }

    mutating func insert(_ item: Item) {
        heap.append(item)
        item.queueIndex = heap.count - 1
        siftUp(from: heap.count - 1)
    }

    mutating func popFirst() -> Item? {
        guard !heap.isEmpty else { return nil }
        return Self.item(remove(at: 0))
    }

    /// Removes `item` if it is still queued.
    mutating func remove(_ item: Item) {
        guard let index = item.queueIndex, index < heap.count, heap[index] === item else { return }
        _ = remove(at: index)
    }

    /// Every entry of this queue is an `Item`: only `insert(_:)` adds one.
    private static func item(_ entry: VirtualQueueEntry) -> Item {
        guard let item = entry as? Item else {
            preconditionFailure("VirtualSchedulerQueue holds an entry of another scheduler type")
        }
        return item
    }

    private mutating func remove(at index: Int) -> VirtualQueueEntry {
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

    private func precedes(_ lhs: VirtualQueueEntry, _ rhs: VirtualQueueEntry) -> Bool {
        switch converter.compareVirtualTime(Self.item(lhs).time, Self.item(rhs).time) {
        case .lessThan: return true
        case .greaterThan: return false
        case .equal: return lhs.sequence < rhs.sequence
        }
    }

    /// Stores `entry` at `index` and tells it so.
    private mutating func place(_ entry: VirtualQueueEntry, at index: Int) {
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
