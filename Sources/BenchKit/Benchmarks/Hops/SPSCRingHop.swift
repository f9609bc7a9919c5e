import Foundation
import Synchronization

/// `reference.spsc-ring`: what a hop could cost with nothing but a ring
/// between the threads, meant as the limit of a hop; compare and the run's
/// summary read it as the limit only where its repetitions are tighter than
/// the library's (`ReferenceBound`), which on a shared 2-core machine they
/// often are not. A lock-free
/// single-producer/single-consumer ring of fixed capacity: the producer
/// writes a slot and publishes its write index, one consumer thread reads
/// everything published so far (the same batching as the library's paths:
/// the whole backlog per pass) and publishes its read index once per batch.
/// Each side keeps a cached copy of the other side's index and reloads it
/// only when its copy says full (producer) or empty (consumer), so in steady
/// state the sides share no cache line per element except the slot itself
/// and the write index.
///
/// The consumer parks only when the ring is empty, on a semaphore, with a
/// "sleeping" flag handshake that loses no wake-up:
/// - consumer: set `sleeping`, re-read the write index (both sequentially
///   consistent); still empty: wait on the semaphore; not empty: take the
///   flag back, and if the producer took it first, consume its signal;
/// - producer: publish the write index, read `sleeping` (both sequentially
///   consistent); set: take the flag and signal.
/// Either the consumer's re-read sees the new element or the producer's read
/// sees the flag: both cannot miss (the stores precede the loads in the one
/// sequentially consistent order). The price is one sequentially consistent
/// store per element (an `xchg` on x86), as the library's queue lock pays a
/// compare-and-swap per element.
///
/// Elements are `UInt64`, as for every hop; nothing is allocated per element
/// or per batch (the ring is allocated, and its pages touched, once per
/// session, before the measured region).
final class SPSCRingHop: HopSession, @unchecked Sendable {
    /// Slots in the ring of `reference.spsc-ring`: 512 KiB of `UInt64`, so
    /// that a consumer preempted for a time slice on a shared machine rarely
    /// makes the producer wait for room (the library's queues grow instead).
    static let defaultCapacity = 1 << 16

    /// The write index, alone on its cache lines (written per element by the producer).
    private let written = PaddedIndex()
    /// The read index, alone on its cache lines (written per batch by the consumer).
    private let read = PaddedIndex()
    /// Set by the consumer before it parks; taken by whoever wakes it.
    private let sleeping = Atomic<Bool>(false)
    /// Set by `close()`: the consumer exits once the ring is empty.
    private let finished = Atomic<Bool>(false)
    private let wakeUp = DispatchSemaphore(value: 0)
    private let exited = DispatchSemaphore(value: 0)
    private let slots: UnsafeMutablePointer<UInt64>
    private let mask: Int
    private var consumer: Thread?

    /// Producer-side state: touched only by the thread running `produce`.
    private var producerIndex = 0
    private var producerCachedRead = 0
    /// How often the consumer parked (written by the consumer; read after it exited).
    private(set) var parks = 0

    /// - Parameter capacity: Slots in the ring; rounded up to a power of two.
    init(capacity: Int = SPSCRingHop.defaultCapacity) {
        precondition(capacity > 0, "capacity must be positive")
        var rounded = 1
        while rounded < capacity { rounded <<= 1 }
        slots = .allocate(capacity: rounded)
        // Touch every page now, outside the measured region.
        slots.initialize(repeating: 0, count: rounded)
        mask = rounded - 1
    }

    deinit {
        slots.deallocate()
    }

    /// Whether the consumer has announced that it is parking (a test seam:
    /// lets a test wait until the consumer sleeps before it sends).
    var isConsumerSleeping: Bool {
        sleeping.load(ordering: .sequentiallyConsistent)
    }

    func pass(produce: @escaping ((UInt64) -> Void) -> Void, consume: @escaping @Sendable (UInt64) -> Void) throws {
        let thread = Thread { [self] in
            drain(consume)
            exited.signal()
        }
        thread.name = "bench.reference.spsc-ring"
        consumer = thread
        thread.start()
        produce { value in self.push(value) }
    }

    /// Appends `value`; waits (spinning, then yielding) while the ring is full.
    @inline(__always)
    private func push(_ value: UInt64) {
        let index = producerIndex
        if index &- producerCachedRead > mask {
            waitForRoom(index)
        }
        (slots + (index & mask)).initialize(to: value)
        producerIndex = index &+ 1
        written.value.store(index &+ 1, ordering: .sequentiallyConsistent)
        if sleeping.load(ordering: .sequentiallyConsistent) {
            wakeConsumer()
        }
    }

    @inline(never)
    private func waitForRoom(_ index: Int) {
        var spins = 0
        while true {
            producerCachedRead = read.value.load(ordering: .acquiring)
            if index &- producerCachedRead <= mask { return }
            spins += 1
            if spins >= 64 {
                spins = 0
                sched_yield()
            }
        }
    }

    @inline(never)
    private func wakeConsumer() {
        if sleeping.exchange(false, ordering: .sequentiallyConsistent) {
            wakeUp.signal()
        }
    }

    private func drain(_ consume: (UInt64) -> Void) {
        var readIndex = 0
        while true {
            let available = written.value.load(ordering: .acquiring)
            if available == readIndex {
                if finished.load(ordering: .sequentiallyConsistent)
                    && written.value.load(ordering: .acquiring) == readIndex {
                    return
                }
                park(readIndex)
                continue
            }
            while readIndex != available {
                consume((slots + (readIndex & mask)).pointee)
                readIndex &+= 1
            }
            read.value.store(readIndex, ordering: .releasing)
        }
    }

    /// Parks the consumer unless an element or `close()` arrived meanwhile.
    private func park(_ readIndex: Int) {
        sleeping.store(true, ordering: .sequentiallyConsistent)
        if written.value.load(ordering: .sequentiallyConsistent) == readIndex
            && !finished.load(ordering: .sequentiallyConsistent) {
            parks += 1
            wakeUp.wait()
            return
        }
        if !sleeping.exchange(false, ordering: .sequentiallyConsistent) {
            // The producer took the flag and signals (or has signalled): take
            // that signal, so the next park does not return at once.
            wakeUp.wait()
        }
    }

    func close() {
        finished.store(true, ordering: .sequentiallyConsistent)
        if sleeping.exchange(false, ordering: .sequentiallyConsistent) {
            wakeUp.signal()
        }
        if consumer != nil {
            exited.wait()
            consumer = nil
        }
    }

    static let variant = HopVariant(id: .reference("spsc-ring")) { SPSCRingHop() }
}

/// An atomic index padded to sit alone on its cache line (128 bytes each
/// side: adjacent-line prefetching pairs lines).
private final class PaddedIndex: Sendable {
    private let before: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64,
                         UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) =
        (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    let value = Atomic<Int>(0)
    private let after: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64,
                        UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) =
        (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
}
