// A small reproduction of issue 29 in one process: `observe(on:)` floods
// before and after a busy serial queue, with libdispatch's threads and the
// process's context switches around them. Depends on the library only, so it
// builds in seconds in a scratch path of its own (for example with
// `-Xswiftc -DSCHEDULERS_DRAIN_STATISTICS`, which makes the library count its
// drains and batches). Usage:
//
//     swift run -c release BusyQueueProbe [elements] [repetitions]
import Dispatch
import Foundation
#if SCHEDULERS_DRAIN_STATISTICS
@_spi(DrainStatistics) import Schedulers
#else
import Schedulers
#endif

let arguments = CommandLine.arguments.dropFirst().map { Int($0) }
guard arguments.allSatisfy({ $0 != nil && $0! > 0 }) else {
    FileHandle.standardError.write(Data("usage: BusyQueueProbe [elements > 0] [repetitions > 0]\n".utf8))
    exit(2)
}
let elements = arguments.first.flatMap { $0 } ?? 500_000
let repetitions = arguments.dropFirst().first.flatMap { $0 } ?? 5

/// A serial queue kept busy: 250,000 blocks of about 0.7 µs each, enqueued
/// far faster than they run, then waited for.
func busyQueueFlood() {
    let queue = DispatchQueue(label: "probe.busy")
    for _ in 0..<250_000 {
        queue.async {
            let end = DispatchTime.now().uptimeNanoseconds + 700
            while DispatchTime.now().uptimeNanoseconds < end {}
        }
    }
    queue.sync {}
}

/// The calling thread's CPU time, ns.
func threadCPU() -> Int {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return time.tv_sec * 1_000_000_000 + time.tv_nsec
}

/// Counts what the consumer received; notes the consuming thread's CPU
/// time at the first and the last element (one thread, when one drain
/// delivers the whole flood).
final class Latch: @unchecked Sendable {
    let expected: Int
    var received = 0
    var consumerCPU = 0
    var consumerThread = pthread_self()
    var oneConsumerThread = true
    let done = DispatchSemaphore(value: 0)
    init(expected: Int) { self.expected = expected }
    func consume() {
        received += 1
        if received == 1 {
            LastFlood.firstDelivery = DispatchTime.now().uptimeNanoseconds
            consumerCPU = threadCPU()
            consumerThread = pthread_self()
        }
        if received == expected {
            consumerCPU = threadCPU() - consumerCPU
            oneConsumerThread = pthread_equal(consumerThread, pthread_self()) != 0
            LastFlood.consumerCPU = oneConsumerThread ? consumerCPU : -1
            done.signal()
        }
    }
}

enum LastFlood {
    nonisolated(unsafe) static var consumerCPU = -1
    nonisolated(unsafe) static var firstDelivery: UInt64 = 0
}

struct Path {
    let name: String
    let flood: (Int) -> Void
}

func observeOnFlood(_ scheduler: ImmediateSchedulerType, path: ObserveOnPath) -> (Int) -> Void {
    { count in
        let latch = Latch(expected: count)
        let source = Observable<Int>.create { observer in
            for index in 0..<count { observer.onNext(index) }
            observer.onCompleted()
            return Disposables.create()
        }
        let subscription = source.observe(on: scheduler, path: path).subscribe(onNext: { _ in latch.consume() })
        latch.done.wait()
        subscription.dispose()
    }
}

let paths = [
    Path(name: "fast-path") { observeOnFlood(SerialDispatchQueueScheduler(internalSerialQueueName: "probe.fast"), path: .automatic)($0) },
    Path(name: "generic") { observeOnFlood(SerialDispatchQueueScheduler(internalSerialQueueName: "probe.generic"), path: .generic)($0) },
    Path(name: "concurrent") {
        observeOnFlood(ConcurrentDispatchQueueScheduler(queue: DispatchQueue(label: "probe.concurrent", attributes: .concurrent)), path: .automatic)($0)
    },
    Path(name: "peer.dispatch-async") { count in
        let queue = DispatchQueue(label: "probe.async")
        let latch = Latch(expected: count)
        for _ in 0..<count { queue.async { latch.consume() } }
        latch.done.wait()
    },
]

func threads() -> Int {
    (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? -1
}

/// Context switches, CPU time (user and system, ns) and page faults (minor)
/// of the whole process so far.
func usage() -> (switches: Int, cpu: Int, faults: Int) {
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    let cpu = (usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1_000_000_000
        + (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1_000
    return (usage.ru_nvcsw + usage.ru_nivcsw, cpu, usage.ru_minflt)
}

struct Sample {
    var nanosecondsPerElement: Double
    /// CPU time of the process per element: unlike the wall clock, not
    /// stretched by other processes taking the cores.
    var cpuPerElement: Double
    var switches: Int
    var faults: Int
    /// CPU time per element of the producing thread, and of the consuming
    /// thread between its first and last element (-1: several threads).
    var producerPerElement: Double
    var consumerPerElement: Double
    /// From the flood's start to the first delivery, µs: how long the first
    /// drain waited for a thread.
    var firstDeliveryMicroseconds: Double
    var drains: Int
    var batches: Int
}

func measure(_ path: Path) -> Sample {
    #if SCHEDULERS_DRAIN_STATISTICS
    let before = ObserveOnDrainStatistics.snapshot()
    #endif
    let usageBefore = usage()
    let producerBefore = threadCPU()
    LastFlood.consumerCPU = -1
    let start = DispatchTime.now().uptimeNanoseconds
    path.flood(elements)
    let firstDelivery = LastFlood.firstDelivery
    let end = DispatchTime.now().uptimeNanoseconds
    let usageAfter = usage()
    let producerCPU = threadCPU() - producerBefore
    var sample = Sample(
        nanosecondsPerElement: Double(end - start) / Double(elements),
        cpuPerElement: Double(usageAfter.cpu - usageBefore.cpu) / Double(elements),
        switches: usageAfter.switches - usageBefore.switches, faults: usageAfter.faults - usageBefore.faults,
        producerPerElement: Double(producerCPU) / Double(elements),
        consumerPerElement: LastFlood.consumerCPU < 0 ? -1 : Double(LastFlood.consumerCPU) / Double(elements),
        firstDeliveryMicroseconds: Double(firstDelivery &- start) / 1000, drains: -1, batches: -1)
    #if SCHEDULERS_DRAIN_STATISTICS
    let after = ObserveOnDrainStatistics.snapshot()
    sample.drains = after.drains - before.drains
    sample.batches = after.batches - before.batches
    #endif
    return sample
}

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

var quiet: [String: [Sample]] = [:]
var disturbed: [String: [Sample]] = [:]
for path in paths { _ = measure(path) }  // warm-up
let threadsQuiet = threads()
for _ in 0..<repetitions {
    for path in paths { quiet[path.name, default: []].append(measure(path)) }
}
for _ in 0..<repetitions {
    for path in paths {
        busyQueueFlood()
        disturbed[path.name, default: []].append(measure(path))
    }
}
let threadsDisturbed = threads()
print("threads (/proc/self/task): \(threadsQuiet) quiet, \(threadsDisturbed) after the busy-queue floods")
print("path                 quiet ns/elt (min-max)   busy ns/elt (min-max)    ratio  1st delivery µs q/b  CPU ns/elt q/b  producer q/b  consumer q/b  faults/flood q/b  switches/flood q/b  drains/flood q/b  elements/batch q/b")
for path in paths {
    let q = quiet[path.name]!, d = disturbed[path.name]!
    let qn = q.map(\.nanosecondsPerElement), dn = d.map(\.nanosecondsPerElement)
    let qc = median(q.map(\.cpuPerElement)), dc = median(d.map(\.cpuPerElement))
    let qp = median(q.map(\.producerPerElement)), dp = median(d.map(\.producerPerElement))
    let qk = median(q.map(\.consumerPerElement)), dk = median(d.map(\.consumerPerElement))
    let qw = median(q.map(\.firstDeliveryMicroseconds)), dw = median(d.map(\.firstDeliveryMicroseconds))
    let qf = median(q.map { Double($0.faults) }), df = median(d.map { Double($0.faults) })
    let qs = median(q.map { Double($0.switches) }), ds = median(d.map { Double($0.switches) })
    let qd = median(q.map { Double($0.drains) }), dd = median(d.map { Double($0.drains) })
    let qb = median(q.map { Double(elements) / Double(max($0.batches, 1)) })
    let db = median(d.map { Double(elements) / Double(max($0.batches, 1)) })
    print(
        path.name.padding(toLength: 20, withPad: " ", startingAt: 0),
        String(format: "%6.1f (%5.1f-%5.1f)     %6.1f (%5.1f-%5.1f)    %5.2f  %7.0f / %-7.0f  %5.0f / %-5.0f  %5.1f / %-5.1f  %5.1f / %-5.1f  %6.0f / %-6.0f  %7.0f / %-7.0f  %7.0f / %-7.0f  %7.0f / %-7.0f",
               median(qn), qn.min()!, qn.max()!, median(dn), dn.min()!, dn.max()!, median(dn) / median(qn), qw, dw, qc, dc, qp, dp, qk, dk, qf, df, qs, ds, qd, dd, qb, db))
}
