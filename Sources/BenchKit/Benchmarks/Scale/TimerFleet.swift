import Dispatch
import Foundation
import NIOCore
import NIOPosix
import Schedulers

/// N periodic timers of one period, started staggered across the period
/// (timer i first due at `origin + i·period/N`), each recording its own ticks.
///
/// Tick k of a timer is due at `first + k·period`; a run is tick
/// `runs + skipped` where `skipped` is what the timer itself says it skipped
/// or merged so far (the library's `PeriodicDisposable.skippedTicks`, a
/// dispatch timer's `data`), as `periodic.drift` counts. A fixed-delay timer
/// (SwiftNIO's) never skips: its lateness accumulates. Ticks after `end`
/// are not recorded.
final class TimerFleet: @unchecked Sendable {
    /// One timer's record: written only by its own ticks, which never overlap.
    final class Slot: @unchecked Sendable {
        let first: UInt64
        let period: UInt64
        let end: UInt64
        private(set) var runs = 0
        private(set) var lateness: [Int64] = []
        private let skippedLock = NSLock()
        private var _skipped: (@Sendable () -> Int)?
        /// Reads how many ticks the job skipped so far; set right after the
        /// job starts (before its first tick is due), read by its ticks.
        var skippedSource: (@Sendable () -> Int)? {
            get { skippedLock.withLock { _skipped } }
            set { skippedLock.withLock { _skipped = newValue } }
        }

        init(first: UInt64, period: UInt64, end: UInt64) {
            self.first = first
            self.period = period
            self.end = end
            lateness.reserveCapacity(Int((end &- first) / period) + 2)
        }

        /// One run of the timer, standing for `merged` due ticks beyond itself
        /// (a dispatch timer's fires merged into this one).
        @inline(__always)
        func tick(merged: Int = 0) {
            let now = MeasureContext.now()
            guard now <= end else { return }
            mergedTicks += merged
            let index = runs + mergedTicks + (skippedSource?() ?? 0)
            runs += 1
            lateness.append(Int64(bitPattern: now &- (first &+ UInt64(index) &* period)))
        }

        private var mergedTicks = 0

        /// Counts what a library job reports in `skippedTicks`.
        func watchSkips(of disposable: Disposable) {
            guard let periodic = disposable as? PeriodicDisposable else { return }
            let box = UnsafeSendableBox(periodic)
            skippedSource = { box.value.skippedTicks }
        }

        /// Ticks due from `first` to one period before `end`: a tick due in
        /// the last period may run after `end` without being late, so only
        /// those before it are expected.
        var due: Int {
            end >= first ? Int((end - first) / period) : 0
        }

        /// Expected ticks that did not run (0 when every expected tick ran;
        /// one due in the last period that ran anyway does not offset a miss
        /// of another timer).
        var skipped: Int {
            max(due - runs, 0)
        }
    }

    let slots: [Slot]
    let origin: UInt64
    let end: UInt64

    /// `count` slots whose first ticks fall in `origin ..< origin + period`.
    init(count: Int, period: UInt64, origin: UInt64, window: UInt64) {
        self.origin = origin
        self.end = origin + window
        slots = (0..<count).map { index in
            Slot(first: origin + UInt64(index) * period / UInt64(max(count, 1)), period: period, end: origin + window)
        }
    }

    /// What a window of ticks cost and how late they were.
    struct Outcome {
        var latenessMicroseconds: [Double]
        var runs: Int
        var due: Int
        var skipped: Int
        var cpuNanoseconds: UInt64
    }

    func outcome(cpuNanoseconds: UInt64) -> Outcome {
        var lateness: [Double] = []
        lateness.reserveCapacity(slots.reduce(0) { $0 + $1.runs })
        var runs = 0
        var due = 0
        var skipped = 0
        for slot in slots {
            lateness.append(contentsOf: slot.lateness.map { Double($0) / 1000 })
            runs += slot.runs
            due += slot.due
            skipped += slot.skipped
        }
        return Outcome(
            latenessMicroseconds: lateness, runs: runs, due: due, skipped: skipped, cpuNanoseconds: cpuNanoseconds)
    }
}

/// One way to run a fleet of periodic timers: starts one per slot, returns
/// what stops them all.
struct TimerFleetKind: Sendable {
    let id: VariantID
    let start: @Sendable (TimerFleet) throws -> () -> Void

    /// Nanoseconds from now to `deadline` (0 if past).
    static func delay(until deadline: UInt64) -> Int {
        let now = MeasureContext.now()
        return deadline > now ? Int(deadline - now) : 0
    }

    /// The library's native periodic scheduling (a repeating dispatch timer per
    /// job) on one serial dispatch scheduler; with `leeway`, through the
    /// per-call leeway overload.
    static func libraryNative(leeway: DispatchTimeInterval?) -> TimerFleetKind {
        let id: VariantID = leeway == nil ? .library("serial-dispatch.native") : .library("serial-dispatch.native.leeway")
        return TimerFleetKind(id: id) { fleet in
            let scheduler = SerialDispatchQueueScheduler(internalSerialQueueName: "bench.scale.timers")
            let disposables: [Disposable] = fleet.slots.map { slot in
                let period = RxTimeInterval.nanoseconds(Int(slot.period))
                let startAfter = RxTimeInterval.nanoseconds(delay(until: slot.first))
                let disposable: Disposable
                if let leeway {
                    disposable = scheduler.schedulePeriodic(slot, startAfter: startAfter, period: period, leeway: leeway) { slot in
                        slot.tick()
                        return slot
                    }
                } else {
                    disposable = scheduler.schedulePeriodic(slot, startAfter: startAfter, period: period) { slot in
                        slot.tick()
                        return slot
                    }
                }
                slot.watchSkips(of: disposable)
                return disposable
            }
            return { disposables.forEach { $0.dispose() } }
        }
    }

    /// The library's emulated periodic scheduling (a one-shot relative timer
    /// per tick, fixed rate) on one serial dispatch scheduler.
    static let libraryEmulated = TimerFleetKind(id: .library("serial-dispatch.emulated")) { fleet in
        let scheduler = SerialDispatchQueueScheduler(internalSerialQueueName: "bench.scale.timers")
        let disposables: [Disposable] = fleet.slots.map { slot in
            scheduler.schedulePeriodicEmulated(
                slot, startAfter: .nanoseconds(delay(until: slot.first)), period: .nanoseconds(Int(slot.period))
            ) { slot in
                slot.tick()
                return slot
            }
        }
        zip(fleet.slots, disposables).forEach { $0.watchSkips(of: $1) }
        return { disposables.forEach { $0.dispose() } }
    }

    /// `DispatchSourceTimer`s used directly, zero leeway, on one serial queue.
    static let dispatchTimer = TimerFleetKind(id: .peer("dispatch-timer")) { fleet in
        let queue = DispatchQueue(label: "bench.scale.peer.dispatch-timer")
        let timers: [DispatchSourceTimer] = fleet.slots.map { slot in
            let timer = DispatchSource.makeTimerSource(queue: queue)
            timer.setEventHandler { slot.tick(merged: max(Int(timer.data), 1) - 1) }
            timer.schedule(
                deadline: DispatchTime(uptimeNanoseconds: slot.first), repeating: .nanoseconds(Int(slot.period)),
                leeway: .nanoseconds(0))
            timer.resume()
            return timer
        }
        return { timers.forEach { $0.cancel() } }
    }

    /// SwiftNIO's `scheduleRepeatedTask` on one event loop (fixed delay).
    static let nio = TimerFleetKind(id: .peer("nio")) { fleet in
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loop = group.next()
        let tasks: [RepeatedTask] = fleet.slots.map { slot in
            loop.scheduleRepeatedTask(
                initialDelay: .nanoseconds(Int64(delay(until: slot.first))), delay: .nanoseconds(Int64(slot.period))
            ) { _ in slot.tick() }
        }
        return {
            let cancelled = tasks.map { task in
                let promise = loop.makePromise(of: Void.self)
                task.cancel(promise: promise)
                return promise.futureResult
            }
            for future in cancelled { try? future.wait() }
            try? group.syncShutdownGracefully()
        }
    }
}
