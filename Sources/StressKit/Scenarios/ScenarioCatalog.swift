import Schedulers

/// Every scenario `Stress` runs, in the order it runs them.
enum ScenarioCatalog {
    /// This library's schedulers: each a ``SchedulerRegistration``
    /// (``LibrarySchedulers``) made into a ``StressScheduler`` as a user's
    /// is, with the library's scenario choice and exploration on top
    /// (``StressScheduler/library(scenarios:)``). Each gets
    /// every scheduler scenario (the main schedulers' observeOn and periodic
    /// scenarios too), the serial dispatch scheduler also the generic
    /// observeOn path, the concurrent one also forced periodic emulation
    /// (where overlapping ticks would be possible at all; the emulation's
    /// code is the same on every scheduler). MainScheduler.asyncInstance is a
    /// SerialDispatchQueueScheduler on the main queue: the serial-dispatch and
    /// main scenarios cover its code.
    static var builtinSchedulers: [StressScheduler] {
        let common: Set<StressScheduler.ScenarioGroup> = [.action, .observeOn, .subscribeOn, .periodic]
        return [
            StressScheduler(LibrarySchedulers.serialDispatch).library(scenarios: common.union([.observeOnGenericPath])),
            StressScheduler(LibrarySchedulers.concurrentDispatch).library(scenarios: common.union([.periodicEmulated])),
            StressScheduler(LibrarySchedulers.operationQueue).library(scenarios: common),
            StressScheduler(LibrarySchedulers.main).library(scenarios: common),
            StressScheduler(LibrarySchedulers.concurrentMain).library(scenarios: common),
        ]
    }

    /// Fresh instances of all scenarios on this library's schedulers.
    static func all() -> [any StressScenario] {
        all(registry: .builtin)
    }

    /// Fresh instances of all scenarios: on this library's schedulers, then
    /// on `schedulers`; throws ``SchedulerRegistrationError`` for a refused registration.
    static func all(registering schedulers: [StressScheduler]) throws -> [any StressScenario] {
        var registry = StressRegistry.builtin
        for scheduler in schedulers {
            try registry.register(scheduler)
        }
        return all(registry: registry)
    }

    /// Fresh instances of all scenarios on `registry`'s schedulers.
    static func all(registry: StressRegistry) -> [any StressScenario] {
        let schedulers = registry.schedulers
        func on(_ group: StressScheduler.ScenarioGroup) -> [StressScheduler] {
            schedulers.filter { $0.scenarios.contains(group) }
        }
        var scenarios: [any StressScenario] = [
            // Guarantee 7 (and 8): the disposables.
            SerialDisposableReplaceVersusDispose(),
            SingleAssignmentSetVersusDispose<SingleAssignmentDisposable>(),
            CompositeInsertVersusDispose(),
            DisposeBagDeinitVersusInsert(),
            ConcurrentDisposeExactlyOnce(),
            // Guarantee 5: dispose racing a scheduled action, on every scheduler.
            TrampolineDisposeVersusAction(),
            TrampolineFromManyThreads(),
            TrampolineRecursionDisposeVersusChain(),
            VirtualTimeDisposeVersusAction(),
        ]
        scenarios += on(.action).map { DispatchDisposeVersusAction($0) as any StressScenario }
        // Guarantee 7 on a scheduler: a ScheduledDisposable disposed by two threads at once.
        scenarios += on(.action).map { ScheduledDisposableOnScheduler($0) as any StressScenario }
        // Guarantee 3: observeOn delivery. The generic path is the same code on
        // every scheduler (and the only path on the concurrent ones): forced
        // once more on a serial scheduler beside its fast path.
        scenarios += on(.observeOn).map { ObserveOnDisposeVersusDelivery($0) as any StressScenario }
        scenarios += on(.observeOnGenericPath).map { ObserveOnDisposeVersusDelivery($0, path: .generic) as any StressScenario }
        // Guarantee 3 without a dispose: every element arrives (a lost wake-up strands one).
        scenarios += on(.observeOn).map { ObserveOnDeliversEverything($0) as any StressScenario }
        // Guarantees 3 and 8 without a re-entrant lock: dropping queued
        // elements at dispose runs their deinits, which send into the chain.
        scenarios += on(.observeOn).map { ObserveOnDeinitReentry($0) as any StressScenario }
        scenarios += on(.observeOnGenericPath).map { ObserveOnDeinitReentry($0, path: .generic) as any StressScenario }
        // Guarantee 3 when an operation queue cancels a pending drain.
        scenarios.append(CancelAllOperationsVersusObserveOn())
        // Guarantee 4: subscribeOn.
        scenarios += on(.subscribeOn).map { SubscribeOnDisposeVersusSubscribe($0) as any StressScenario }
        // Guarantee 6: periodic ticks, native, and forced emulation.
        scenarios += on(.periodic).map { PeriodicDisposeVersusTick($0) as any StressScenario }
        scenarios += on(.periodicEmulated).map { PeriodicDisposeVersusTick($0, emulated: true) as any StressScenario }
        // The Swift Concurrency bridge: cancellation is disposal for `values`,
        // and a serial scheduler's executor outlives neither its jobs nor its actor.
        scenarios.append(ValuesCancelVersusDelivery())
        scenarios.append(ActorJobVersusSchedulerTeardown())
        // A serial scheduler's executor keeps FIFO with its actions while
        // several threads enqueue jobs.
        scenarios += schedulers.filter(\.isSerial).map { ExecutorFIFOWithManyEnqueuers($0) as any StressScenario }
        // Progress: what must happen. Parallelism where two jobs at once are
        // promised (the library's concurrent targets, and registrations that
        // declare it), due-time order and periodic ticks under a flood of
        // executor jobs on the serial dispatch scheduler, and a periodic fire
        // that comes while its job's tick runs.
        scenarios += ParallelTarget.library.map { ParallelProgress($0) as any StressScenario }
        scenarios += schedulers.filter(\.promisesParallelism).map {
            ParallelProgress(.registered($0)) as any StressScenario
        }
        scenarios.append(DueOrderProgress(.serialDispatch))
        scenarios.append(PeriodicProgress(.serialDispatch))
        scenarios.append(PeriodicFireDuringTick(.serialDispatch))
        // The platform's own executors, as references: reported, never gated.
        scenarios += PlatformReferences.all
        return scenarios
    }
}
