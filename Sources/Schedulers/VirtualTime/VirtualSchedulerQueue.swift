/// The time-ordered queue of a `VirtualTimeScheduler`: a 4-ary min-heap.
///
/// Ordered by due time, then by `sequence`, so items due at the same time run
/// in the order they were scheduled (a stable priority queue). Each item knows
/// its index, so a disposed item leaves the heap in O(log n) instead of
/// waiting there until its time comes. Inserting, removing and popping
/// allocate nothing beyond the heap's storage, which grows by doubling.
///
/// The keys (due times and sequences) are kept in arrays of their own, beside
/// the array of items, so sifting compares keys without touching the items:
/// with a million items queued, reading each compared item's time missed the
/// caches at every comparison. The keys hold no reference: a slot that held
/// its item beside its key was copied whole per comparison, retaining the
/// item, which read it all the same (41 % of the run phase at 10⁶ under
/// perf). The sequences are an array of `UInt64`, which is compiled for that
/// type even where the rest runs unspecialized. Four children per node halve
/// the levels a sift goes through, and a node's children's keys are next to
/// each other. A sift still writes the index of every item it moves into
/// that item.
///
/// Items and keys move into a hole (`place(_:time:sequence:at:)`), never with `swapAt`:
/// this code is generic in `Converter`, and called from another module (a
/// test suite's `TestScheduler`, a user's `HistoricalScheduler`) it runs
/// unspecialized, where `MutableCollection.swapAt` goes through the
/// protocol's accessor coroutines, which allocated twice per swap: popping
/// the first of N actions made about 2·log₂N allocations
/// (VirtualTimeAllocationTests holds the count per action constant in N;
/// Performance.md has the figures).
struct VirtualSchedulerQueue<Converter: VirtualTimeConverterType> {
    typealias Item = VirtualSchedulerItem<Converter>
    typealias Time = Converter.VirtualTimeUnit

    /// Children per node: the children of `i` are `4i + 1 ... 4i + 4`.
    private static var arity: Int { 4 }

    private let converter: Converter
    /// `times[i]` and `sequences[i]` are the key of `items[i]`: a copy of its
    /// `time` and `sequence`. The three always have the same count.
    private var times: [Time] = []
    private var sequences: [UInt64] = []
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
        times.append(item.time)
        sequences.append(item.sequence)
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
            place(items[last], time: times[last], sequence: sequences[last], at: index)
        }
        items.removeLast()
        times.removeLast()
        sequences.removeLast()
        removed.queueIndex = nil
        if index < items.count {
            // The last item, now at `index`, goes up if it precedes its new
            // parent, else down (or stays).
            let parent = (index - 1) / Self.arity
            if index > 0, precedes(times[index], sequences[index], times[parent], sequences[parent]) {
                siftUp(from: index)
            } else {
                siftDown(from: index)
            }
        }
        return removed
    }

    /// Whether the key (`lhsTime`, `lhsSequence`) comes before (`rhsTime`, `rhsSequence`).
    private func precedes(_ lhsTime: Time, _ lhsSequence: UInt64, _ rhsTime: Time, _ rhsSequence: UInt64) -> Bool {
        switch converter.compareVirtualTime(lhsTime, rhsTime) {
        case .lessThan: return true
        case .greaterThan: return false
        case .equal:
            #if SCHEDULERS_MUTANTS
            if Mutant.active == .virtualTimeTiesReversed {
                return lhsSequence > rhsSequence
            }
            #endif
            return lhsSequence < rhsSequence
        }
    }

    /// Stores `item` with its key at `index` and tells the item so.
    private mutating func place(_ item: Item, time: Time, sequence: UInt64, at index: Int) {
        items[index] = item
        times[index] = time
        sequences[index] = sequence
        item.queueIndex = index
    }

    private mutating func siftUp(from start: Int) {
        var child = start
        let movingItem = items[child]
        let movingTime = times[child]
        let movingSequence = sequences[child]
        while child > 0 {
            let parent = (child - 1) / Self.arity
            let parentTime = times[parent]
            let parentSequence = sequences[parent]
            guard precedes(movingTime, movingSequence, parentTime, parentSequence) else { break }
            place(items[parent], time: parentTime, sequence: parentSequence, at: child)
            child = parent
        }
        place(movingItem, time: movingTime, sequence: movingSequence, at: child)
    }

    private mutating func siftDown(from start: Int) {
        var parent = start
        let movingItem = items[parent]
        let movingTime = times[parent]
        let movingSequence = sequences[parent]
        let count = items.count
        while true {
            let firstChild = Self.arity * parent + 1
            guard firstChild < count else { break }
            let end = min(firstChild + Self.arity, count)
            var smallest = firstChild
            var smallestTime = times[firstChild]
            var smallestSequence = sequences[firstChild]
            var child = firstChild + 1
            while child < end {
                let childTime = times[child]
                let childSequence = sequences[child]
                if precedes(childTime, childSequence, smallestTime, smallestSequence) {
                    smallest = child
                    smallestTime = childTime
                    smallestSequence = childSequence
                }
                child += 1
            }
            guard precedes(smallestTime, smallestSequence, movingTime, movingSequence) else { break }
            place(items[smallest], time: smallestTime, sequence: smallestSequence, at: parent)
            parent = smallest
        }
        place(movingItem, time: movingTime, sequence: movingSequence, at: parent)
    }
}
