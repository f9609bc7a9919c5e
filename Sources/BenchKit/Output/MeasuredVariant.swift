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
    var name: String { id.name }
}

extension VariantID {
    /// `observe(on:)` a serial dispatch queue scheduler, on its fast path.
    static let fastPath = library("fast-path")
    /// `observe(on:)` a serial dispatch queue scheduler, forced onto the generic path.
    static let generic = library("generic")
    /// `observe(on:)` a concurrent dispatch queue scheduler.
    static let concurrent = library("concurrent")
    /// `observe(on:)` an operation queue scheduler.
    static let operationQueue = library("operation-queue")
    /// `observe(on:)` the main scheduler: delivery on the main thread.
    static let main = library("main")
    /// The current-thread (trampoline) scheduler.
    static let currentThread = library("current-thread")
}
