import Dispatch
import Foundation
import Schedulers

/// This library's schedulers as variants of the observeOn benchmarks: a
/// variant name means the same scheduler and the same `observe(on:)` path in
/// every benchmark that measures it (`observeOn.throughput`,
/// `observeOn.latency`, `observeOn.subscription`).
struct LibrarySchedulerVariant: Sendable {
    let id: VariantID
    let path: ObserveOnPath
    /// Delivers on the main thread, so the main queue must be serviced (and
    /// the producer must not run there, or nothing would hop).
    let isMain: Bool
    /// Makes the scheduler, fresh for a session; `label` names the queue it
    /// creates, where it creates one.
    let makeScheduler: @Sendable (_ label: String) -> ImmediateSchedulerType

    /// The schedulers that hop to another thread: `fast-path` and `generic`
    /// (one serial dispatch scheduler, each path), `concurrent`,
    /// `operation-queue` and `main`.
    static let hopping: [LibrarySchedulerVariant] = [
        LibrarySchedulerVariant(id: .fastPath, path: .automatic, isMain: false) {
            SerialDispatchQueueScheduler(internalSerialQueueName: $0)
        },
        LibrarySchedulerVariant(id: .generic, path: .generic, isMain: false) {
            SerialDispatchQueueScheduler(internalSerialQueueName: $0)
        },
        LibrarySchedulerVariant(id: .concurrent, path: .automatic, isMain: false) {
            ConcurrentDispatchQueueScheduler(queue: DispatchQueue(label: $0, attributes: .concurrent))
        },
        LibrarySchedulerVariant(id: .operationQueue, path: .automatic, isMain: false) { _ in
            OperationQueueScheduler(operationQueue: OperationQueue())
        },
        LibrarySchedulerVariant(id: .main, path: .automatic, isMain: true) { _ in
            MainScheduler.instance
        },
    ]
}
