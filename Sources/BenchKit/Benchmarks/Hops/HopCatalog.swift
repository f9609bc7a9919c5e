/// Every hop variant of a registry in the order a run interleaves them: the
/// registered schedulers' `observe(on:)` hops and the registered peer hops,
/// in registration order (``SchedulerRegistry/standard``: this library's
/// schedulers first, then the peers, then the references).
enum HopCatalog {
    static func all(_ registry: SchedulerRegistry) -> [HopVariant] {
        registry.entries.flatMap { entry -> [HopVariant] in
            switch entry {
            case .scheduler(let scheduler) where scheduler.groups.contains(.hops):
                LibraryHops.variants(of: scheduler)
            case .hop(let hop): [hop]
            default: []
            }
        }
    }

    /// `all`, then the hops of the schedulers registered to be measured under
    /// disturbance again (the library's serial-queue paths), each repetition
    /// preceded by dispatch-heavy work (`DispatchDisturbance`): the condition
    /// an embedding app creates, in which the two paths must keep their order.
    static func throughput(_ registry: SchedulerRegistry) -> [HopVariant] {
        all(registry) + registry.schedulers
            .filter { $0.groups.contains(.hops) && $0.measuredUnderDisturbance }
            .flatMap(LibraryHops.variants(of:))
            .map(DispatchDisturbance.disturbed)
    }

    /// The variants of `all` that `BusyQueueDisturbance.applies(to:)` picks,
    /// each session preceded by a busy serial queue, under its own name: the
    /// variants of `observeOn.busyQueue`.
    static func busyQueue(_ registry: SchedulerRegistry) -> [HopVariant] {
        busyQueueFloods(registry).map(BusyQueueDisturbance.afterBusyQueue)
    }

    /// The variants of `all` that `BusyQueueDisturbance.applies(to:)` picks,
    /// as they are: the hops of `observeOn.busyQueue`'s flood series, which
    /// runs the busy queue between floods itself (`BusyQueueFloods`).
    static func busyQueueFloods(_ registry: SchedulerRegistry) -> [HopVariant] {
        all(registry).filter(BusyQueueDisturbance.applies)
    }
}
