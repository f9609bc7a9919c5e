#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Waiting for another thread: spin a little, then yield, then nap.
///
/// Spinning keeps the actors' start times within a few hundred nanoseconds;
/// yielding, then napping, keeps a waiting thread from starving the thread
/// it waits for on a machine with fewer cores than threads.
struct Backoff {
    private var rounds = 0

    static let spinRounds = 128
    static let yieldRounds = 2_048

    mutating func pause() {
        rounds += 1
        if rounds < Self.spinRounds {
            spinDelay(8)
        } else if rounds < Self.yieldRounds {
            sched_yield()
        } else {
            usleep(50)
        }
    }
}

/// A busy loop of about `rounds` steps that the optimiser cannot remove.
@inline(never)
public func spinDelay(_ rounds: Int) {
    var accumulator = 0
    for round in 0..<rounds {
        accumulator = accumulator &* 31 &+ round
    }
    spinSink = accumulator
}

/// Written by `spinDelay` so its loop is not optimised away; never read.
nonisolated(unsafe) private var spinSink = 0
