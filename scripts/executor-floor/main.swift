// The floor under an actor executor that runs its jobs through Dispatch:
// one actor per executor, each element a task isolated to it (the hop of
// BenchRunner's `actor-executor` and `peer.actor`), and no code of the
// Schedulers library. `scripts/executor-floor.sh` builds and runs it.
//
// Every custom executor here is the least a batching executor does: a
// mutex-guarded array of jobs and one block per batch that runs them until
// the array is empty (`LeastDispatchExecutor`, BenchRunner's
// `peer.dispatch-executor`, which the script builds into this program).
// They differ only in where that block runs:
// - `serial-queue`: a serial queue of its own, as a
//   `SerialDispatchQueueScheduler`'s queue is;
// - `serial-queue.global-target`: a serial queue whose target is the global
//   concurrent queue;
// - `global-queue`: the global concurrent queue itself (still serial: at most
//   one block of a batch runs at a time).
// `default-actor` is the same actor type on the runtime's default executor.
//
// Rounds interleave the variants; each variant's elements per second are
// divided by the default actor's of the same round, and the median of those
// ratios is printed with the ratios themselves.
import Dispatch
import Foundation
import Synchronization

/// Counts the tasks that ran and wakes the producer at the last one.
final class Latch: Sendable {
    private let remaining = Atomic<Int>(0)
    private let done = DispatchSemaphore(value: 0)

    func expect(_ count: Int) {
        remaining.store(count, ordering: .relaxed)
    }

    func hit() {
        if remaining.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 {
            done.signal()
        }
    }

    func wait() {
        done.wait()
    }
}

let latch = Latch()

let serialQueue = LeastDispatchExecutor(queue: DispatchQueue(label: "floor.serial-queue"))
let serialQueueGlobalTarget = LeastDispatchExecutor(
    queue: DispatchQueue(label: "floor.serial-queue.global-target", target: .global()))
let globalQueue = LeastDispatchExecutor(queue: .global())

@globalActor actor DefaultActor {
    static let shared = DefaultActor()
}

@globalActor actor SerialQueueActor {
    static let shared = SerialQueueActor()
    nonisolated var unownedExecutor: UnownedSerialExecutor { serialQueue.asUnownedSerialExecutor() }
}

@globalActor actor SerialQueueGlobalTargetActor {
    static let shared = SerialQueueGlobalTargetActor()
    nonisolated var unownedExecutor: UnownedSerialExecutor { serialQueueGlobalTarget.asUnownedSerialExecutor() }
}

@globalActor actor GlobalQueueActor {
    static let shared = GlobalQueueActor()
    nonisolated var unownedExecutor: UnownedSerialExecutor { globalQueue.asUnownedSerialExecutor() }
}

let arguments = CommandLine.arguments.dropFirst().compactMap { Int($0) }
guard arguments.count == 2, arguments.allSatisfy({ $0 > 0 }) else {
    FileHandle.standardError.write(Data("usage: executor-floor ELEMENTS ROUNDS (both whole numbers above 0)\n".utf8))
    exit(2)
}
let elements = arguments[0]
let rounds = arguments[1]

/// Elements per second of one flood: `elements` tasks sent one after the
/// other, timed until the last has run.
func flood(_ send: () -> Void) -> Double {
    latch.expect(elements)
    let start = DispatchTime.now().uptimeNanoseconds
    for _ in 0..<elements {
        send()
    }
    latch.wait()
    return Double(elements) / (Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
}

let variants: [(name: String, send: () -> Void)] = [
    ("default-actor", { Task { @DefaultActor in latch.hit() } }),
    ("serial-queue", { Task { @SerialQueueActor in latch.hit() } }),
    ("serial-queue.global-target", { Task { @SerialQueueGlobalTargetActor in latch.hit() } }),
    ("global-queue", { Task { @GlobalQueueActor in latch.hit() } }),
]
for variant in variants {
    _ = flood(variant.send)  // warm-up
}
var perSecond: [String: [Double]] = [:]
for _ in 0..<rounds {
    for variant in variants {
        perSecond[variant.name, default: []].append(flood(variant.send))
    }
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

print("elements/s, median of \(rounds) rounds of \(elements) tasks each:")
for variant in variants {
    print("  \(variant.name.padding(toLength: 28, withPad: " ", startingAt: 0)) \(Int(median(perSecond[variant.name]!)))")
}
print("each executor over default-actor in the same round (median; every round's ratio, sorted):")
let base = perSecond["default-actor"]!
for variant in variants.dropFirst() {
    let ratios = zip(perSecond[variant.name]!, base).map { $0 / $1 }
    let listed = ratios.sorted().map { String(format: "%.2f", $0) }.joined(separator: " ")
    print("  \(variant.name.padding(toLength: 28, withPad: " ", startingAt: 0)) \(String(format: "%.3f", median(ratios)))  \(listed)")
}
