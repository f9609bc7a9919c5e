import ToolSupport

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
