/// The seeded choices of one iteration: the actors' start delays, which
/// thread runs which actor, and any choice the scenario makes.
///
/// The same seed gives the same sequence of choices for a scenario, whatever
/// other scenarios run (each scenario's generator is seeded from the run seed
/// and the scenario's name). Thread interleavings themselves cannot be
/// replayed; the choices that steer them can.
struct IterationChoices: Sendable, Equatable {
    /// Nanoseconds each actor busy-waits after the start barrier, by actor index.
    var delays: [Int]
    /// `order[thread]` is the actor that thread runs in this iteration.
    var order: [Int]
    private var generator: SeededGenerator

    /// The longest start delay, in nanoseconds.
    static let maximumDelay = 1_000

    init(actorCount: Int, generator: inout SeededGenerator) {
        var delays: [Int] = []
        for _ in 0..<actorCount {
            // Half the time no delay at all, so actors also start exactly together.
            let delayed = generator.next() & 1 == 1
            delays.append(delayed ? Int(generator.next() % UInt64(Self.maximumDelay)) + 1 : 0)
        }
        var order = Array(0..<actorCount)
        for index in stride(from: actorCount - 1, to: 0, by: -1) {
            let other = Int(generator.next() % UInt64(index + 1))
            order.swapAt(index, other)
        }
        self.delays = delays
        self.order = order
        self.generator = SeededGenerator(seed: generator.next())
    }

    /// A seeded choice in `0..<count`, for the scenario's own use.
    mutating func pick(_ count: Int) -> Int {
        precondition(count > 0, "IterationChoices.pick(_:) needs a positive count")
        return Int(generator.next() % UInt64(count))
    }
}

/// SplitMix64: small, fast, and good enough to steer delays.
struct SeededGenerator: RandomNumberGenerator, Sendable, Equatable {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    /// A generator for `scenario` under run seed `seed` (FNV-1a of the name, mixed in).
    init(seed: UInt64, scenario: String) {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in scenario.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        state = seed ^ hash
    }

    mutating func next() -> UInt64 {
        state &+= 0x9e37_79b9_7f4a_7c15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xbf58_476d_1ce4_e5b9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94d0_49bb_1331_11eb
        return mixed ^ (mixed >> 31)
    }
}
