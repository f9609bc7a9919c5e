/// Greedy binary segmentation of a sequence under the least-squares cost
/// (Scott and Knott, 1974; Vostrikova, 1981), as ruptures' `Binseg` with
/// `model="l2"`, `min_size=1`, `jump=1` computes it.
///
/// The cost of a segment is the sum of its squared deviations from its mean
/// (its length times its population variance). Each step takes, in every
/// current segment, the split that lowers that segment's cost most (its
/// *gain*), and adds the one with the largest gain over all segments. Ties
/// break as ruptures breaks them: within a segment the later split, across
/// segments the earlier segment. Every split leaves at least one value on
/// each side.
///
/// The steps are returned in order, so a caller can stop after any of them:
/// the first `k` splits are ruptures' breakpoints for `n_bkps=k`
/// (`scripts/history_reference.py` checks that on the committed runs).
package struct BinarySegmentation: Sendable {
    /// One step: the split added and the segment it split.
    struct Step: Sendable, Equatable {
        /// Index of the first value after the split (ruptures' breakpoint).
        let split: Int
        /// The segment split, `start..<end`.
        let segment: Range<Int>
        /// How much the split lowered the segment's cost.
        let gain: Double
    }

    private let prefixSum: [Double]
    private let prefixSquares: [Double]
    private let values: [Double]

    /// Segments `values` (one value per position, in order).
    init(_ values: [Double]) {
        self.values = values
        var sum = [0.0]
        var squares = [0.0]
        sum.reserveCapacity(values.count + 1)
        squares.reserveCapacity(values.count + 1)
        for value in values {
            sum.append(sum[sum.count - 1] + value)
            squares.append(squares[squares.count - 1] + value * value)
        }
        prefixSum = sum
        prefixSquares = squares
    }

    /// The cost of `start..<end`: its length times its population variance,
    /// computed as NumPy's `var` computes it (the mean first, then the mean
    /// squared deviation), so that near-equal gains order as in the reference.
    func cost(_ start: Int, _ end: Int) -> Double {
        let count = end - start
        guard count > 1 else { return 0 }
        let mean = values[start..<end].reduce(0, +) / Double(count)
        var squared = 0.0
        for value in values[start..<end] {
            let deviation = value - mean
            squared += deviation * deviation
        }
        return squared / Double(count) * Double(count)
    }

    /// The best split of `start..<end` and its gain, nil when the segment
    /// has fewer than two values.
    func bestSplit(_ start: Int, _ end: Int) -> (split: Int, gain: Double)? {
        guard end - start >= 2 else { return nil }
        let whole = cost(start, end)
        var best: (split: Int, gain: Double)?
        for split in (start + 1)..<end {
            let gain = whole - cost(start, split) - cost(split, end)
            // The later split wins a tie, as ruptures' max over (gain, split) pairs.
            if let current = best, gain < current.gain { continue }
            best = (split, gain)
        }
        return best
    }

    /// Up to `limit` greedy steps, in the order they are taken; fewer when
    /// every segment is a single value.
    func steps(limit: Int) -> [Step] {
        var boundaries = [0, values.count]
        var taken: [Step] = []
        while taken.count < limit {
            var chosen: Step?
            for index in 0..<(boundaries.count - 1) {
                let start = boundaries[index]
                let end = boundaries[index + 1]
                guard let candidate = bestSplit(start, end) else { continue }
                // The earlier segment wins a tie, as ruptures' max over segments.
                if let current = chosen, candidate.gain <= current.gain { continue }
                chosen = Step(split: candidate.split, segment: start..<end, gain: candidate.gain)
            }
            guard let step = chosen else { break }
            taken.append(step)
            boundaries.append(step.split)
            boundaries.sort()
        }
        return taken
    }
}
