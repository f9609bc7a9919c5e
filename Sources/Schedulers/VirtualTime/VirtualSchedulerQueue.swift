/// The time-ordered queue of a `VirtualTimeScheduler`: a 4-ary min-heap.
///
/// Ordered by due time, then by `sequence`, so items due at the same time run
/// in the order they were scheduled (a stable priority queue). Each item knows
/// its index, so a disposed item leaves the heap in O(log n) instead of
/// waiting there until its time comes. Inserting, removing and popping
/// allocate nothing beyond the heap's storage, which grows by doubling.
///
/// The keys (due time and sequence) are kept in an array of their own, beside
/// the array of items, so sifting compares keys without touching the items:
/// with a million items queued, reading each compared item's time missed the
/// caches at every comparison. The keys hold no reference: a slot that held
/// its item beside its key was copied whole per comparison, retaining the
/// item, which read it all the same (41 % of the run phase at 10⁶ under
/// perf). Four children per node halve the levels a sift goes through, and a
/// node's children's keys are next to each other. A sift still writes the
/// index of every item it moves into that item.
///
/// Items and keys move into a hole (`place(_:_:at:)`), never with `swapAt`:
/// this code is generic in `Converter`, and called from another module (a
/// test suite's `TestScheduler`, a user's `HistoricalScheduler`) it runs
/// unspecialized, where `MutableCollection.swapAt` goes through the
/// protocol's accessor coroutines, which allocated twice per swap: popping
/// the first of N actions made about 2·log₂N allocations
/// (VirtualTimeAllocationTests holds the count per action constant in N;
/// Performance.md has the figures).
struct VirtualSchedulerQueue<Converter: VirtualTimeConverterType> {
    typealias Item = VirtualSchedulerItem<Converter>

    /// What the heap orders by: a copy of an item's `time` and `sequence`.
    private struct Key {
        let time: Converter.VirtualTimeUnit
        let sequence: UInt64
    }

    /// Children per node: the children of `i` are `4i + 1 ... 4i + 4`.
    private static var arity: Int { 4 }

    private let converter: Converter
    /// `keys[i]` is the key of `items[i]`; the two always have the same count.
    private var keys: [Key] = []
    private var items: [Item] = []

    init(converter: Converter) {
        self.converter = converter
    }

    var count: Int { items.count }

    /// The earliest item. Read with Array's own subscript, not `first`:
    /// unspecialized, `Collection.first` reads through the protocol's accessor
    /// coroutine, which allocated once per call (one allocation per run action).
    var first: Item? { items.isEmpty ? nil : items[0] }

    mutating func insert(_ item: Item) {
        keys.append(Key(time: item.time, sequence: item.sequence))
        items.append(item)
        item.queueIndex = items.count - 1
        siftUp(from: items.count - 1)
    }

    mutating func popFirst() -> Item? {
        guard !items.isEmpty else { return nil }
        return remove(at: 0)
    }

    /// Removes `item` if it is still queued.
    mutating func remove(_ item: Item) {
        guard let index = item.queueIndex, index < items.count, items[index] === item else { return }
        _ = remove(at: index)
    }

    private mutating func remove(at index: Int) -> Item {
        let removed = items[index]
        let last = items.count - 1
        if index != last {
            place(items[last], keys[last], at: index)
        }
        items.removeLast()
        keys.removeLast()
        removed.queueIndex = nil
        if index < items.count {
            // The last item, now at `index`, goes up if it precedes its new
            // parent, else down (or stays).
            if index > 0, precedes(keys[index], keys[(index - 1) / Self.arity]) {
                siftUp(from: index)
            } else {
                siftDown(from: index)
            }
        }
        return removed
    }

    private func precedes(_ lhs: Key, _ rhs: Key) -> Bool {
        switch converter.compareVirtualTime(lhs.time, rhs.time) {
        case .lessThan: return true
        case .greaterThan: return false
        case .equal: return lhs.sequence < rhs.sequence
        }
    }

    /// Stores `item` with its `key` at `index` and tells the item so.
    private mutating func place(_ item: Item, _ key: Key, at index: Int) {
        items[index] = item
        keys[index] = key
        item.queueIndex = index
    }

    private mutating func siftUp(from start: Int) {
        var child = start
        let movingItem = items[child]
        let movingKey = keys[child]
        while child > 0 {
            let parent = (child - 1) / Self.arity
            let parentKey = keys[parent]
            guard precedes(movingKey, parentKey) else { break }
            place(items[parent], parentKey, at: child)
            child = parent
        }
        place(movingItem, movingKey, at: child)
    }

    private mutating func siftDown(from start: Int) {
        var parent = start
        let movingItem = items[parent]
        let movingKey = keys[parent]
        let count = keys.count
        while true {
            let firstChild = Self.arity * parent + 1
            guard firstChild < count else { break }
            let end = min(firstChild + Self.arity, count)
            var smallest = firstChild
            var smallestKey = keys[firstChild]
            var child = firstChild + 1
            while child < end {
                let childKey = keys[child]
                if precedes(childKey, smallestKey) {
                    smallest = child
                    smallestKey = childKey
                }
                child += 1
            }
            guard precedes(smallestKey, movingKey) else { break }
            place(items[smallest], smallestKey, at: parent)
            parent = smallest
        }
        place(movingItem, movingKey, at: parent)
    }
}
