import Dispatch
import NIOCore
import NIOPosix
import OpenCombine
import OpenCombineDispatch

/// The periodic timers a user would pick instead of this library's.
enum PeerPeriodicJobs {
    /// `peer.dispatch-timer`: a `DispatchSourceTimer` with zero leeway. A late
    /// timer merges fires silently; `data` says how many, so skips are counted.
    static let dispatchTimer = PeriodicJob(id: .peer("dispatch-timer")) { recorder in
        let queue = DispatchQueue(label: "bench.peer.dispatch-timer")
        let timer = DispatchSource.makeTimerSource(queue: queue)
        let box = SkipBox()
        timer.setEventHandler {
            let fires = max(Int(timer.data), 1)
            box.skipped += fires - 1
            recorder.tick(fires: fires)
        }
        timer.schedule(
            deadline: DispatchTime(uptimeNanoseconds: recorder.start + recorder.period),
            repeating: .nanoseconds(Int(recorder.period)), leeway: .nanoseconds(0))
        timer.resume()
        return RunningJob(
            stop: { timer.cancel() },
            skippedTicks: { queue.sync { box.skipped } })
    }

    /// `peer.nio`: `scheduleRepeatedTask` on a one-thread event loop (fixed
    /// delay after each run, so it never skips and its drift accumulates).
    static let nio = PeriodicJob(id: .peer("nio")) { recorder in
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let period = TimeAmount.nanoseconds(Int64(recorder.period))
        let initial = TimeAmount.nanoseconds(Int64(recorder.start + recorder.period) - Int64(MeasureContext.now()))
        let loop = group.next()
        let task = loop.scheduleRepeatedTask(initialDelay: initial, delay: period) { _ in
            recorder.tick()
        }
        return RunningJob(
            stop: {
                // Wait until the task is really cancelled: shutting the loop down
                // first would let a running tick reschedule onto a dead loop.
                let cancelled = loop.makePromise(of: Void.self)
                task.cancel(promise: cancelled)
                try? cancelled.futureResult.wait()
                try? group.syncShutdownGracefully()
            },
            skippedTicks: { 0 })
    }

    /// `peer.opencombine`: `schedule(after:interval:)` on a dispatch queue
    /// scheduler. It is a dispatch timer underneath that merges late fires
    /// without telling, so skipped ticks are left empty.
    static let openCombine = PeriodicJob(id: .peer("opencombine")) { recorder in
        let scheduler = DispatchQueue(label: "bench.peer.opencombine-timer").ocombine
        let cancellable = scheduler.schedule(
            after: .init(DispatchTime(uptimeNanoseconds: recorder.start + recorder.period)),
            interval: .nanoseconds(Int(recorder.period)), tolerance: .nanoseconds(0), options: nil
        ) {
            recorder.tick()
        }
        return RunningJob(stop: { cancellable.cancel() }, skippedTicks: { nil })
    }

    final class SkipBox: @unchecked Sendable {
        var skipped = 0
    }
}
