/// The scheduler a scenario races on: made afresh by `setUp()`, drained,
/// handed to its registration's teardown and dropped by `tearDown()`, and drained after every iteration by `settle()`,
/// which remembers whether it drained in time (a scheduler that did not has
/// hung, which the arbiter grades).
///
/// The scenarios that run on one registered scheduler share this rather than
/// each keeping the registration, the scheduler and the flag themselves.
final class ScenarioScheduler: @unchecked Sendable {
    /// Which scheduler the scenario runs on.
    let registration: StressScheduler
    /// The scheduler between `setUp()` and `tearDown()`.
    private(set) var current: SchedulerUnderTest?
    /// Whether the last `settle(rounds:)` drained in time.
    private(set) var settledInTime = true

    init(_ registration: StressScheduler) {
        self.registration = registration
    }

    /// The registration's name, which ends the scenario's name.
    var name: String { registration.name }

    /// Why the scenario cannot be explored on this scheduler, or `nil`.
    var explorationBlocker: String? {
        registration.explorable
            ? nil : "\(registration.name) is a registered scheduler: its threads are its own, which no schedule controller runs"
    }

    func setUp() {
        // A scheduler still here from a setUp without its tearDown is done with, too.
        current?.finish()
        let made = registration.make()
        made.settleSeconds = registration.stallTimeoutSeconds
        current = made
    }

    func tearDown() {
        _ = current?.settle()
        current?.finish()
        current = nil
    }

    /// Waits until everything enqueued has run, `rounds` times over (work
    /// that enqueues more work needs more than one), and records whether
    /// every round finished in time.
    func settle(rounds: Int = 1) {
        settledInTime = true
        for _ in 0..<rounds where settledInTime {
            settledInTime = current?.settle() ?? true
        }
    }
}
