/// Every hop variant in the order a run interleaves them: this library's
/// schedulers first, then the peers, then the reference limit.
enum HopCatalog {
    static var all: [HopVariant] {
        LibraryHops.variants + [
            ActorHops.schedulerExecutor,
            DispatchAsyncHop.variant,
            OpenCombineHop.variant,
            AsyncStreamHop.variant,
            ActorHops.defaultActor,
            NIOHop.variant,
            BatchedHandoffHop.variant,
            SPSCRingHop.variant,
        ]
    }

    /// `all`, then the library's serial-queue paths again, each repetition
    /// preceded by dispatch-heavy work (`DispatchDisturbance`): the condition
    /// an embedding app creates, in which the two paths must keep their order.
    static var throughput: [HopVariant] {
        all + LibraryHops.variants
            .filter { ["fast-path", "generic"].contains($0.name) }
            .map(DispatchDisturbance.disturbed)
    }

    /// The variants of `all` that `BusyQueueDisturbance.applies(to:)` picks,
    /// each session preceded by a busy serial queue, under its own name: the
    /// variants of `observeOn.busyQueue`.
    static var busyQueue: [HopVariant] {
        all.filter(BusyQueueDisturbance.applies).map(BusyQueueDisturbance.afterBusyQueue)
    }
}
