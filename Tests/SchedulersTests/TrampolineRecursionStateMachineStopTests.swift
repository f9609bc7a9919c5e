@testable import Schedulers
import Testing

/// The transitions the trampoline recursion never makes: each stops the
/// program with a message naming it. Exit tests; the transitions it makes
/// are in `TrampolineRecursionStateMachineTests`.
@Suite struct TrampolineRecursionStateMachineStopTests {
    /// A machine inside the first step of `runSteps`.
    private static func inFirstStep() -> TrampolineRecursionStateMachine {
        var machine = TrampolineRecursionStateMachine()
        machine.runWillStart(holdingReference: false)
        machine.stepWillStart()
        return machine
    }

    @Test func runWithoutAPendingStepStops() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var machine = Self.inFirstStep()
            _ = machine.stepDidEnd(nextIsFirstInQueue: false)
            _ = machine.runDidEnd()
            machine.runWillStart(holdingReference: false)
        }
        expectStopped(result, messageContaining: "runSteps without a pending step")
    }

    @Test func stepStartedOutsideRunStepsStops() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var machine = TrampolineRecursionStateMachine()
            machine.stepWillStart()
        }
        expectStopped(result, messageContaining: "a step started outside runSteps")
    }

    @Test func recurseOutsideAStepStops() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var machine = TrampolineRecursionStateMachine()
            machine.runWillStart(holdingReference: false)
            _ = machine.recurse()
        }
        expectStopped(result, messageContaining: "recurse outside a step")
    }

    @Test func stepEndedThatHadNotStartedStops() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var machine = TrampolineRecursionStateMachine()
            machine.runWillStart(holdingReference: false)
            _ = machine.stepDidEnd(nextIsFirstInQueue: false)
        }
        expectStopped(result, messageContaining: "a step ended that had not started")
    }

    @Test func runEndedInsideAStepStops() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var machine = Self.inFirstStep()
            _ = machine.runDidEnd()
        }
        expectStopped(result, messageContaining: "runSteps ended inside a step")
    }

    @Test func extraStepThatWasNotQueuedStops() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var machine = TrampolineRecursionStateMachine()
            machine.extraStepWillRun()
        }
        expectStopped(result, messageContaining: "an extra step ran that was not queued")
    }

    @Test func extraStepEndedThatHadNotStartedStops() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var machine = TrampolineRecursionStateMachine()
            _ = machine.extraStepDidEnd()
        }
        expectStopped(result, messageContaining: "an extra step ended that had not started")
    }
}
