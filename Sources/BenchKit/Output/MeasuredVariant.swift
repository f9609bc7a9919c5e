/// A variant as a benchmark's catalogue holds it before it becomes a
/// plan (a hop, a periodic job, a subscription lifecycle): what the plan
/// takes from it besides the workload.
package protocol MeasuredVariant {
    var id: VariantID { get }
    /// Set when this build or machine cannot run the variant.
    var unavailableReason: String? { get }
    /// Runs on the main thread, so the main queue must be serviced.
    var needsMainQueue: Bool { get }
}

extension MeasuredVariant {
    /// The `variant` column's value.
    package var name: String { id.name }
}

extension VariantID {
    /// `observe(on:)` a serial dispatch queue scheduler, on its fast path.
    package static let fastPath = library("fast-path")
    /// `observe(on:)` a serial dispatch queue scheduler, forced onto the generic path.
    package static let generic = library("generic")
    /// `observe(on:)` a concurrent dispatch queue scheduler.
    package static let concurrent = library("concurrent")
    /// `observe(on:)` an operation queue scheduler.
    package static let operationQueue = library("operation-queue")
    /// `observe(on:)` the main scheduler: delivery on the main thread.
    package static let main = library("main")
    /// The current-thread (trampoline) scheduler.
    package static let currentThread = library("current-thread")
}
