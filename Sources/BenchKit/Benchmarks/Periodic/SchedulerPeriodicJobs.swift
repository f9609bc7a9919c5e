import Foundation
import Schedulers

/// A registered scheduler's periodic jobs (``BenchScheduler``): `native` is
/// `schedulePeriodic` as a `PeriodicScheduler` implements it (a dispatch
/// timer, for the library's), `emulated` is the library's fixed-rate
/// emulation (recursive relative scheduling, with the default missed-tick
/// policy: catch up a short backlog, skip a stall): forced with
/// `schedulePeriodicEmulated` on a `PeriodicScheduler`, or what
/// `schedulePeriodic` does on a scheduler that does not implement it.
enum SchedulerPeriodicJobs {
    static func jobs(of scheduler: BenchScheduler) -> [PeriodicJob] {
        scheduler.periodicVariants.map { id, forceEmulation in
            job(
                id, emulated: forceEmulation, needsMainQueue: scheduler.deliversOnMain,
                stallTimeoutSeconds: scheduler.stallTimeoutSeconds,
                release: { scheduler.release($0) }
            ) {
                try scheduler.makeScheduler("bench.drift.\(scheduler.name)")
            }
        }
    }

    static func job(
        _ id: VariantID, emulated: Bool, needsMainQueue: Bool = false, stallTimeoutSeconds: Double? = nil,
        release: (@Sendable (any SchedulerType) -> Void)? = nil,
        scheduler: @escaping @Sendable () throws -> any SchedulerType
    ) -> PeriodicJob {
        PeriodicJob(id: id, needsMainQueue: needsMainQueue, stallTimeoutSeconds: stallTimeoutSeconds) { recorder in
            let scheduler = try scheduler()
            let period = RxTimeInterval.nanoseconds(Int(recorder.period))
            let disposable: Disposable
            // `startAfter` is relative to this call: count from here, not from
            // before the scheduler was created.
            recorder.markStart()
            if emulated {
                disposable = scheduler.schedulePeriodicEmulated(0, startAfter: period, period: period) { state in
                    recorder.tick()
                    return state
                }
            } else {
                disposable = scheduler.schedulePeriodic(0, startAfter: period, period: period) { state in
                    recorder.tick()
                    return state
                }
            }
            let periodic = disposable as? PeriodicDisposable
            if let periodic {
                let box = UnsafeSendableBox(periodic)
                recorder.skippedSource = { box.value.skippedTicks }
            }
            // The scheduler goes to its teardown once, at the first stop.
            var released = false
            return RunningJob(
                stop: {
                    disposable.dispose()
                    if !released {
                        released = true
                        release?(scheduler)
                    }
                },
                skippedTicks: { periodic?.skippedTicks })
        }
    }
}

/// Hands a non-Sendable reference to a tick; the library's periodic
/// disposables are thread-safe (`@unchecked Sendable` classes).
struct UnsafeSendableBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
