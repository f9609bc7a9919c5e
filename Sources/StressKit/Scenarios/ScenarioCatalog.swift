import Schedulers

/// Every scenario `Stress` runs, in the order it runs them.
public enum ScenarioCatalog {
    /// Fresh instances of all scenarios.
    public static func all() -> [any StressScenario] {
        var scenarios: [any StressScenario] = [
            SerialDisposableReplaceVersusDispose(),
            SingleAssignmentSetVersusDispose<SingleAssignmentDisposable>(),
            CompositeInsertVersusDispose(),
            DisposeBagDeinitVersusInsert(),
            ConcurrentDisposeExactlyOnce(),
            TrampolineDisposeVersusAction(),
            TrampolineFromManyThreads(),
        ]
        scenarios += schedulerScenarios()
        for kind in SchedulerUnderTest.Kind.allCases {
            scenarios.append(SubscribeOnDisposeVersusSubscribe(kind))
        }
        for kind in SchedulerUnderTest.Kind.allCases where kind != .mainAsync {
            scenarios.append(PeriodicDisposeVersusTick(kind))
        }
        scenarios.append(PeriodicDisposeVersusTick(.serialDispatch, emulated: true))
        scenarios.append(PeriodicDisposeVersusTick(.concurrentDispatch, emulated: true))
        return scenarios
    }

    /// Scenarios that need the dispatch schedulers and sequences.
    static func schedulerScenarios() -> [any StressScenario] {
        var scenarios: [any StressScenario] = []
        for kind in SchedulerUnderTest.Kind.allCases {
            scenarios.append(DispatchDisposeVersusAction(kind))
        }
        for kind in SchedulerUnderTest.Kind.allCases {
            scenarios.append(ObserveOnDisposeVersusDelivery(kind))
            if kind.isSerial {
                scenarios.append(ObserveOnDisposeVersusDelivery(kind, path: .generic))
            }
        }
        return scenarios
    }
}
