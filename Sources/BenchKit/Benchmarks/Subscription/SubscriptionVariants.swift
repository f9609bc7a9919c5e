import Dispatch
import Foundation
import OpenCombine
import OpenCombineDispatch
import Schedulers

/// The variants of `observeOn.subscription`, one per name of `CSVSchema`:
/// this library's `observe(on:)` on each scheduler, then the OpenCombine peer.
enum SubscriptionVariants {
    static var all: [SubscriptionVariant] {
        LibrarySchedulerVariant.hopping.map { library in
            SubscriptionVariant(id: library.id, needsMainQueue: library.isMain, requireMainThread: library.isMain) {
                LibraryLifecycle(
                    scheduler: library.makeScheduler("bench.subscription.\(library.id.name)"), path: library.path)
            }
        } + [
            SubscriptionVariant(id: .currentThread) {
                LibraryLifecycle(scheduler: CurrentThreadScheduler.instance, path: .automatic)
            },
            SubscriptionVariant(id: .peer("opencombine")) { OpenCombineLifecycle() },
        ]
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

    init(scheduler: ImmediateSchedulerType, path: ObserveOnPath) {
        self.scheduler = scheduler
        self.path = path
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

    func close() {}
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
