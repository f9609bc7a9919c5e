import Schedulers

/// Every scenario `Stress` runs, in the order it runs them.
public enum ScenarioCatalog {
    /// Fresh instances of all scenarios.
    public static func all() -> [any StressScenario] {
        // MainScheduler.asyncInstance is a SerialDispatchQueueScheduler on the
        // main queue: the serial-dispatch and main scenarios cover its code.
        let kinds = SchedulerUnderTest.Kind.allCases.filter { $0 != .mainAsync }
        var scenarios: [any StressScenario] = [
            // Guarantee 7 (and 8): the disposables.
            SerialDisposableReplaceVersusDispose(),
            SingleAssignmentSetVersusDispose<SingleAssignmentDisposable>(),
            CompositeInsertVersusDispose(),
            DisposeBagDeinitVersusInsert(),
            ConcurrentDisposeExactlyOnce(),
            ScheduledDisposableOnScheduler(),
            // Guarantee 5: dispose racing a scheduled action, on every scheduler.
            TrampolineDisposeVersusAction(),
            TrampolineFromManyThreads(),
            TrampolineRecursionDisposeVersusChain(),
            VirtualTimeDisposeVersusAction(),
        ]
        scenarios += kinds.map { DispatchDisposeVersusAction($0) as any StressScenario }
        // Guarantee 3: observeOn delivery. The generic path is the same code on
        // every scheduler (and the only path on the concurrent ones): forced
        // once more on a serial scheduler beside its fast path.
        scenarios += kinds.map { ObserveOnDisposeVersusDelivery($0) as any StressScenario }
        scenarios.append(ObserveOnDisposeVersusDelivery(.serialDispatch, path: .generic))
        // Guarantee 4: subscribeOn.
        scenarios += kinds.map { SubscribeOnDisposeVersusSubscribe($0) as any StressScenario }
        // Guarantee 6: periodic ticks, native, and emulated on a concurrent
        // scheduler (where overlapping ticks would be possible at all; the
        // emulation's code is the same on every scheduler).
        scenarios += kinds.map { PeriodicDisposeVersusTick($0) as any StressScenario }
        scenarios.append(PeriodicDisposeVersusTick(.concurrentDispatch, emulated: true))
        // The Swift Concurrency bridge: cancellation is disposal for `values`,
        // and a serial scheduler's executor outlives neither its jobs nor its actor.
        scenarios.append(ValuesCancelVersusDelivery())
        scenarios.append(ActorJobVersusSchedulerTeardown())
        return scenarios
    }
}
