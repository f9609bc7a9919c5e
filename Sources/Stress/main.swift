// Stress: the dispose-race harness. See StressOptions, or run --help.
//
// The scenarios run on a background thread while the main thread parks in
// dispatchMain(), so MainScheduler's work (the main queue) is drained as it
// is in an application; the background thread exits the process when done.
import Dispatch
import Foundation
import Schedulers
import StressKit

let command = StressCommand(
    scenarios: ScenarioCatalog.all(),
    selfCheck: SingleAssignmentSetVersusDispose<BrokenSingleAssignmentDisposable<WidenedWindow>>(
        name: "self-check.broken-single-assignment",
        // Two actors: on two cores both run at once, so the broken window is hit.
        disposers: 1
    ),
    brokenVariants: [
        BrokenVariant(
            label: "widened gap", window: "two locks, 20 µs pause",
            scenario: SingleAssignmentSetVersusDispose<BrokenSingleAssignmentDisposable<WidenedWindow>>(
                name: "self-check.widened-gap", disposers: 1),
            explorationMustFind: true),
        BrokenVariant(
            label: "narrow gap", window: "two locks, no pause",
            scenario: SingleAssignmentSetVersusDispose<BrokenSingleAssignmentDisposable<NarrowWindow>>(
                name: "self-check.narrow-gap", disposers: 1),
            explorationMustFind: true),
        BrokenVariant(
            label: "check-then-act", window: "one step (load, then store)",
            scenario: SingleAssignmentSetVersusDispose<CheckThenActSingleAssignmentDisposable>(
                name: "self-check.check-then-act", disposers: 2),
            explorationMustFind: true),
    ],
    output: { text in
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }
)
let arguments = Array(CommandLine.arguments.dropFirst())

let harness = Thread {
    exit(command.main(arguments))
}
harness.name = "stress.harness"
harness.stackSize = 8 << 20
harness.start()
dispatchMain()
