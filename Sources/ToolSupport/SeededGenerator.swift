import Foundation

/// SplitMix64: a small, fast, deterministic generator, so that a seeded
/// run (Stress's delays and schedules, compare's simulations) draws the
/// same numbers on every run.
package struct SeededGenerator: RandomNumberGenerator, Sendable, Equatable {
    private var state: UInt64

    package init(seed: UInt64) {
        state = seed
    }

    /// A generator for `scenario` under run seed `seed` (FNV-1a of the name, mixed in).
    package init(seed: UInt64, scenario: String) {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in scenario.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        state = seed ^ hash
    }

    package mutating func next() -> UInt64 {
        state &+= 0x9e37_79b9_7f4a_7c15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xbf58_476d_1ce4_e5b9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94d0_49bb_1331_11eb
        return mixed ^ (mixed >> 31)
    }

    /// A standard normal value (Box-Muller).
    package mutating func nextGaussian() -> Double {
        let u1 = Double.random(in: Double.ulpOfOne..<1, using: &self)
        let u2 = Double.random(in: 0..<1, using: &self)
        return (-2 * log(u1)).squareRoot() * cos(2 * Double.pi * u2)
    }
}
