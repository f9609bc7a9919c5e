/// The time-ordered queue of a `VirtualTimeScheduler`: a 4-ary min-heap.
///
/// Ordered by due time, then by sequence, so items due at the same time run
/// in the order they were scheduled (a stable priority queue). A disposed
/// item is not taken out when it is disposed: it stays as a tombstone (its
/// state and action already released) until it reaches the top, where
/// `VirtualTimeScheduler.takeNext(notAfter:)` drops it, or until
/// `removeDisposed()` drops every tombstone at once and rebuilds the heap.
/// Inserting, popping and compacting allocate nothing beyond the heap's
/// storage, which grows by doubling.
///
/// The keys (due times and sequences) are kept in arrays of their own, beside
/// the array of items, so sifting compares keys without touching the items:
/// with a million items queued, reading each compared item's time would miss
/// the caches at every comparison. The keys hold no reference: a slot
/// holding its item beside its key would be copied whole per comparison,
/// retaining the item. Four children per node halve the levels a sift goes through, and a
/// node's children's keys are next to each other.
///
/// Inlinable, as the scheduler's paths that use it are: a caller in another
/// module (a test suite's `TestScheduler`, a user's `HistoricalScheduler`)
/// compiles it for its own converter. Unspecialized, each array access asks
/// the runtime for the array's metadata, most of what an action costs.
///
/// Items and keys move into a hole (`place(_:time:sequence:at:)`), never with
/// `swapAt`: where this code still runs unspecialized (a scheduler used only
/// through the `Scheduler` protocol inside this module),
/// `MutableCollection.swapAt` goes through the protocol's accessor
/// coroutines, which allocate twice per swap (VirtualTimeAllocationTests
/// holds the count per action constant in N; Performance.md, "Scale", says why
/// the heap is built this way).
@usableFromInline
struct VirtualSchedulerQueue<Converter: VirtualTimeConverterType> {
    @usableFromInline
    typealias Item = VirtualSchedulerItem
    @usableFromInline
    typealias Time = Converter.VirtualTimeUnit

    /// Children per node: the children of `i` are `4i + 1 ... 4i + 4`.
    @inlinable
    static var arity: Int { 4 }

    @usableFromInline
    let converter: Converter
    /// `times[i]` and `sequences[i]` are the key of `items[i]`: its due time
    /// and scheduling order. The three always have the same count.
    @usableFromInline
    var times: [Time] = []
    @usableFromInline
    var sequences: [UInt64] = []
    @usableFromInline
    var items: [Item] = []

    @inlinable
    init(converter: Converter) {
        self.converter = converter
    }

    /// Items in the heap, tombstones included.
    @inlinable
    var count: Int { items.count }

    /// Items in the heap that are not disposed. O(n): for tests.
    var liveCount: Int {
        var live = 0
        for item in items where !item.isDisposed {
            live += 1
        }
        return live
    }

    /// The earliest item and its due time. Read with Array's own subscript,
    /// not `first`: unspecialized, `Collection.first` reads through the
    /// protocol's accessor coroutine, which allocated once per call.
    @inlinable
    var first: (time: Time, item: Item)? {
        items.isEmpty ? nil : (times[0], items[0])
    }

    @inlinable
    mutating func insert(_ item: Item, time: Time, sequence: UInt64) {
        times.append(time)
        sequences.append(sequence)
        items.append(item)
        siftUp(from: items.count - 1)
    }

    /// Removes the earliest item.
    ///
    /// - Precondition: the queue is not empty.
    @inlinable
    mutating func removeFirst() {
        let last = items.count - 1
        if last > 0 {
            place(items[last], time: times[last], sequence: sequences[last], at: 0)
        }
        items.removeLast()
        times.removeLast()
        sequences.removeLast()
        if last > 1 {
            siftDown(from: 0)
        }
    }

    /// Drops every disposed item and rebuilds the heap, in O(n); returns how
    /// many it dropped.
    @inlinable
    mutating func removeDisposed() -> Int {
        let count = items.count
        var kept = 0
        for index in 0..<count {
            let item = items[index]
            guard !item.isDisposed else { continue }
            if kept != index {
                place(item, time: times[index], sequence: sequences[index], at: kept)
            }
            kept += 1
        }
        let removed = count - kept
        guard removed > 0 else { return 0 }
        items.removeSubrange(kept..<count)
        times.removeSubrange(kept..<count)
        sequences.removeSubrange(kept..<count)
        if kept > 1 {
            // Every node with a child, last first: the classic bottom-up build.
            var parent = (kept - 2) / Self.arity
            while parent >= 0 {
                siftDown(from: parent)
                parent -= 1
            }
        }
        return removed
    }

    /// Whether the key (`lhsTime`, `lhsSequence`) comes before (`rhsTime`, `rhsSequence`).
    @inlinable
    func precedes(_ lhsTime: Time, _ lhsSequence: UInt64, _ rhsTime: Time, _ rhsSequence: UInt64) -> Bool {
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

    /// Stores `item` with its key at `index`.
    @inlinable
    mutating func place(_ item: Item, time: Time, sequence: UInt64, at index: Int) {
        items[index] = item
        times[index] = time
        sequences[index] = sequence
    }

    @inlinable
    mutating func siftUp(from start: Int) {
        var child = start
        let movingTime = times[child]
        let movingSequence = sequences[child]
        guard child > 0 else { return }
        let movingItem = items[child]
        while child > 0 {
            let parent = (child - 1) / Self.arity
            let parentTime = times[parent]
            let parentSequence = sequences[parent]
            guard precedes(movingTime, movingSequence, parentTime, parentSequence) else { break }
            place(items[parent], time: parentTime, sequence: parentSequence, at: child)
            child = parent
        }
        if child != start {
            place(movingItem, time: movingTime, sequence: movingSequence, at: child)
        }
    }

    @inlinable
    mutating func siftDown(from start: Int) {
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
        if parent != start {
            place(movingItem, time: movingTime, sequence: movingSequence, at: parent)
        }
    }
}
