import Dispatch
import Foundation
import Schedulers

extension SchedulerRegistry {
    /// This library's schedulers, then the peers and references, registered
    /// through the same calls as a user's scheduler (each library scheduler
    /// a ``SchedulerRegistration``, as a user's). Their variant names are
    /// the CSV's since the first runs (`fast-path`, `serial-dispatch.native`,
    /// `peer.nio`…), kept so that committed results still compare.
    package static var standard: SchedulerRegistry {
        var registry = SchedulerRegistry()
        do {
            for scheduler in librarySchedulers {
                try registry.register(scheduler)
            }
            for hop in [
                ActorHops.schedulerExecutor, DispatchAsyncHop.variant, OpenCombineHop.variant, AsyncStreamHop.variant,
                ActorHops.defaultActor, ActorHops.dispatchExecutor, NIOHop.variant, BatchedHandoffHop.variant,
                SPSCRingHop.variant,
                TaskHops.schedulerTaskExecutor, TaskHops.globalExecutor,
            ] {
                try registry.register(hop: hop)
            }
            try registry.register(subscriptionPeer: SubscriptionVariant(id: .peer("opencombine")) { OpenCombineLifecycle() })
            for job in [PeerPeriodicJobs.dispatchTimer, PeerPeriodicJobs.nio, PeerPeriodicJobs.openCombine] {
                try registry.register(periodicPeer: job)
            }
        } catch {
            preconditionFailure("the standard registry refused its own registration: \(error)")
        }
        return registry
    }

    /// This library's schedulers. Each writes its historical names: a serial
    /// dispatch queue scheduler is `fast-path` and `generic` in the hop
    /// groups and `serial-dispatch.*` in `periodic.drift`.
    static var librarySchedulers: [BenchScheduler] {
        [
            BenchScheduler(
                SchedulerRegistration("serial-dispatch") { SerialDispatchQueueScheduler(internalSerialQueueName: "bench.\($0)") },
                role: .library, names: .init(hop: "fast-path", genericHop: "generic", periodic: "serial-dispatch"),
                groups: [.hops, .subscription, .periodic], measuredUnderDisturbance: true),
            BenchScheduler(
                SchedulerRegistration("concurrent-dispatch") {
                    ConcurrentDispatchQueueScheduler(queue: DispatchQueue(label: "bench.\($0)", attributes: .concurrent))
                },
                role: .library, names: .init(hop: "concurrent", periodic: "concurrent-dispatch"),
                groups: [.hops, .subscription, .periodic]),
            BenchScheduler(
                SchedulerRegistration("operation-queue") { _ in OperationQueueScheduler(operationQueue: OperationQueue()) },
                role: .library, names: .init("operation-queue"), groups: [.hops, .subscription, .periodic]),
            // MainScheduler is a SerialScheduler, but its variant has always
            // been the path `observe(on:)` picks only.
            BenchScheduler(
                SchedulerRegistration("main") { _ in MainScheduler.instance },
                role: .library, names: .init(hop: "main", genericHop: nil, periodic: "main"),
                groups: [.hops, .subscription, .periodic], deliversOnMain: true),
            BenchScheduler(
                SchedulerRegistration("current-thread") { _ in CurrentThreadScheduler.instance },
                role: .library, names: .init("current-thread"), groups: [.subscription], runsInline: true),
            // The simplest scheduler a user writes (`asyncAfter` with the
            // default leeway), driven by the library's periodic emulation.
            BenchScheduler(
                SchedulerRegistration("user-scheduler") { _ in
                    AsyncAfterUserScheduler(queue: DispatchQueue(label: "bench.drift.user-scheduler"))
                },
                role: .library, names: .init("user-scheduler"), groups: [.periodic]),
        ]
    }
}

extension BenchScheduler.VariantNames {
    /// Historical names: `genericHop` `nil` writes no generic-path variant.
    init(hop: String, genericHop: String? = nil, periodic: String) {
        self.init(hop)
        self.genericHop = genericHop ?? ""
        self.periodic = periodic
    }
}
