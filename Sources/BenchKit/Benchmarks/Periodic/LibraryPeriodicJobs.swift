import Foundation
import Schedulers

/// This library's periodic scheduling per builtin scheduler: `native` is
/// `schedulePeriodic` as the scheduler implements it (a dispatch timer),
/// `emulated` forces `schedulePeriodicEmulated` (recursive relative
/// scheduling at a fixed rate, with the default missed-tick policy: catch up
/// a short backlog, skip a stall) on the same scheduler.
enum LibraryPeriodicJobs {
    static var all: [PeriodicJob] {
        [
            job(.library("serial-dispatch.native"), emulated: false) { SerialDispatchQueueScheduler(internalSerialQueueName: "bench.drift.serial") },
            job(.library("serial-dispatch.emulated"), emulated: true) { SerialDispatchQueueScheduler(internalSerialQueueName: "bench.drift.serial") },
            job(.library("concurrent-dispatch.native"), emulated: false) { ConcurrentDispatchQueueScheduler(qos: .default) },
            job(.library("concurrent-dispatch.emulated"), emulated: true) { ConcurrentDispatchQueueScheduler(qos: .default) },
            job(.library("operation-queue.native"), emulated: false) { OperationQueueScheduler(operationQueue: OperationQueue()) },
            job(.library("operation-queue.emulated"), emulated: true) { OperationQueueScheduler(operationQueue: OperationQueue()) },
            job(.library("main.native"), emulated: false, needsMainQueue: true) { MainScheduler.instance },
            job(.library("main.emulated"), emulated: true, needsMainQueue: true) { MainScheduler.instance },
        ]
    }

    static func job(
        _ id: VariantID, emulated: Bool, needsMainQueue: Bool = false,
        scheduler: @escaping @Sendable () -> any SchedulerType
    ) -> PeriodicJob {
        PeriodicJob(id: id, needsMainQueue: needsMainQueue) { recorder in
            let scheduler = scheduler()
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
            return RunningJob(
                stop: { disposable.dispose() },
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
