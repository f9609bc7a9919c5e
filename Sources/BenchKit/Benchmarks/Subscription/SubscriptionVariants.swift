import Dispatch
import Foundation
import OpenCombine
import OpenCombineDispatch
import Schedulers

/// The variants of `observeOn.subscription` of a registry: each registered
/// scheduler's `observe(on:)` on the paths it is measured on, and the
/// registered peers (``SchedulerRegistry/standard``: the OpenCombine peer),
/// in registration order.
enum SubscriptionVariants {
    static func all(_ registry: SchedulerRegistry) -> [SubscriptionVariant] {
        registry.entries.flatMap { entry -> [SubscriptionVariant] in
            switch entry {
            case .scheduler(let scheduler) where scheduler.groups.contains(.subscription):
                variants(of: scheduler)
            case .subscription(let variant): [variant]
            default: []
            }
        }
    }

    static func variants(of scheduler: BenchScheduler) -> [SubscriptionVariant] {
        let timeout = scheduler.stallTimeoutSeconds.map { UInt64(max($0, 0.001) * 1e9) }
            ?? LifecycleRunner.defaultTimeoutNanoseconds
        return scheduler.hopPaths.map { id, path in
            SubscriptionVariant(
                id: id, needsMainQueue: scheduler.deliversOnMain, requireMainThread: scheduler.deliversOnMain,
                timeoutNanoseconds: timeout
            ) {
                let made = scheduler.make("bench.subscription.\(id.name)")
                return LibraryLifecycle(scheduler: made, path: path, release: { scheduler.release(made) })
            }
        }
    }

    /// The variants whose lifecycles hand a drain to another thread, usually
    /// idle, so their time is mostly that thread's wake-up.
    static func wakeUpBound(_ registry: SchedulerRegistry) -> [VariantID] {
        registry.entries.flatMap { entry -> [VariantID] in
            switch entry {
            case .scheduler(let scheduler) where scheduler.groups.contains(.subscription) && !scheduler.runsInline:
                scheduler.hopPaths.map(\.id)
            case .subscription(let variant): [variant.id]
            default: []
            }
        }
    }
}

/// `Observable.create` emitting one element at subscription (made once per
/// session, like a source an app keeps), then, per lifecycle,
/// `observe(on:)` the scheduler and `subscribe(onNext:)`: the operator is
/// applied anew each time, as app code written inline does.
final class LibraryLifecycle: SubscriptionLifecycle {
    private let scheduler: ImmediateSchedulerType
    private let path: ObserveOnPath
    private let source: Observable<UInt64>
    /// Hands the scheduler to its registration's teardown; called once, by `close()`.
    private var release: (() -> Void)?

    init(scheduler: ImmediateSchedulerType, path: ObserveOnPath, release: (() -> Void)? = nil) {
        self.scheduler = scheduler
        self.path = path
        self.release = release
        source = Observable<UInt64>.create { observer in
            observer.onNext(1)
            return Disposables.create()
        }
    }

    func subscribe(_ token: LifecycleToken) -> Disposable {
        source.observe(on: scheduler, path: path).subscribe(onNext: { _ in token.delivered() })
    }

    func dispose(_ handle: Disposable) {
        handle.dispose()
    }

    func close() {
        release?()
        release = nil
    }
}

/// `peer.opencombine`: a `CurrentValueSubject` (made once per session; it
/// sends its value to each new subscriber and never completes, like the
/// library's source), per lifecycle `receive(on:)` a serial dispatch queue and
/// `sink`, ended by `cancel()`. OpenCombine's sink drops its closure on
/// `cancel()`, so step 4 of a lifecycle ends there.
final class OpenCombineLifecycle: SubscriptionLifecycle {
    private let queue = DispatchQueue(label: "bench.subscription.peer.opencombine")
    private let subject = CurrentValueSubject<UInt64, Never>(1)

    func subscribe(_ token: LifecycleToken) -> AnyCancellable {
        subject.receive(on: queue.ocombine).sink { _ in token.delivered() }
    }

    func dispose(_ handle: AnyCancellable) {
        handle.cancel()
    }

    func close() {}
}
