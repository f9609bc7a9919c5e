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
        // A controlled thread waits at a sync point: the schedule lets the
        // thread it waits for run.
        if Exploration.syncPoint(.spinWait) {
            return
        }
        rounds += 1
        if rounds < Self.spinRounds {
            spinDelay(nanoseconds: 50)
        } else if rounds < Self.yieldRounds {
            sched_yield()
        } else {
            usleep(50)
        }
    }
}

/// Busy-waits at least `nanoseconds` on the monotonic clock.
///
/// Measured in time, not loop rounds: an optimiser removes or vectorises an
/// idle loop, and ThreadSanitizer slows one down a hundredfold, while a
/// clock read costs about the same in every build, so a seed replays the
/// same delays under ThreadSanitizer as without.
///
/// On a thread a schedule controller runs, returns at once: nothing runs
/// beside it, and the schedule, not time, decides the interleaving.
func spinDelay(nanoseconds: Int) {
    guard nanoseconds > 0, !Exploration.isControlledThread else { return }
    let end = monotonicNanoseconds() &+ UInt64(nanoseconds)
    while monotonicNanoseconds() < end {}
}

/// The monotonic clock, read directly (cheaper than building a `DispatchTime`).
@inline(__always)
func monotonicNanoseconds() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
}
