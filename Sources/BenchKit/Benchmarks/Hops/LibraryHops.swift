import Foundation
import Schedulers

/// A registered scheduler's `observe(on:)` hops, one per path it is measured
/// on (``BenchScheduler``): a producer looping inside `Observable.create`,
/// `observe(on:)` the scheduler, a `subscribe(onNext:)` consumer.
enum LibraryHops {
    static func variants(of scheduler: BenchScheduler) -> [HopVariant] {
        scheduler.hopPaths.map { id, path in
            HopVariant(
                id: id, needsMainQueue: scheduler.deliversOnMain,
                stallTimeoutSeconds: scheduler.stallTimeoutSeconds ?? 120
            ) {
                let made = scheduler.make("bench.\(id.name)")
                return ObservableHop(
                    scheduler: made, path: path, requireMainThread: scheduler.deliversOnMain,
                    release: { scheduler.release(made) })
            }
        }
    }
}

/// One `observe(on:)` subscription per pass.
final class ObservableHop: HopSession {
    private let scheduler: ImmediateSchedulerType
    private let path: ObserveOnPath
    private let requireMainThread: Bool
    private var subscription: Disposable?
    /// Hands the scheduler to its registration's teardown; called once, by `close()`.
    private var release: (() -> Void)?

    init(
        scheduler: ImmediateSchedulerType, path: ObserveOnPath, requireMainThread: Bool = false,
        release: (() -> Void)? = nil
    ) {
        self.scheduler = scheduler
        self.path = path
        self.requireMainThread = requireMainThread
        self.release = release
    }

    func pass(produce: @escaping ((UInt64) -> Void) -> Void, consume: @escaping @Sendable (UInt64) -> Void) throws {
        if requireMainThread && MainQueueDriver.isMainThread {
            throw BenchmarkFailure("main: the producer runs on the main thread, so nothing would hop")
        }
        let source = Observable<UInt64>.create { observer in
            produce { value in observer.onNext(value) }
            observer.onCompleted()
            return Disposables.create()
        }
        let offMain = OffMainCounter()
        let checked: @Sendable (UInt64) -> Void
        if requireMainThread {
            checked = { value in
                if !MainQueueDriver.isMainThread { offMain.count += 1 }
                consume(value)
            }
        } else {
            checked = consume
        }
        subscription = source.observe(on: scheduler, path: path).subscribe(onNext: checked)
        if requireMainThread {
            offMainCounter = offMain
        }
    }

    private var offMainCounter: OffMainCounter?

    func close() {
        subscription?.dispose()
        subscription = nil
        release?()
        release = nil
    }

    func verify() throws {
        if let offMainCounter, offMainCounter.count > 0 {
            throw BenchmarkFailure("main: \(offMainCounter.count) elements were delivered off the main thread")
        }
    }

    final class OffMainCounter: @unchecked Sendable {
        var count = 0
    }
}
