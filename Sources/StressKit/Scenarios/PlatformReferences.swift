/// The platform's own executors, run through the same scenarios as the
/// library's as references: their tables are printed and their forbidden
/// outcomes counted, but they never fail a run (their names start with
/// `reference.`), so a reader sees which promises the library keeps that the
/// platform does and does not.
enum PlatformReferences {
    /// Every reference scenario, in the order they run.
    static var all: [any StressScenario] {
        [
            ReferenceExecutorFIFO(.mainActor),
            ReferenceExecutorFIFO(.defaultActor),
            ParallelProgress(.globalConcurrentExecutor),
            DueOrderProgress(.mainActor),
            DueOrderProgress(.defaultActor),
            PeriodicProgress(.mainActor),
            PeriodicProgress(.defaultActor),
        ]
    }
}
