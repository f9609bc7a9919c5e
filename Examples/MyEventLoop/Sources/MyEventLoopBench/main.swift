// Benchmarks EventLoopScheduler beside the library's schedulers and the
// peers, with BenchRunner's command line: --quick, --filter, --repetitions,
// --output, list, compare (see --help).
import BenchKit
import BenchRunnerCLI
import EventLoop
import Foundation
import Schedulers

var schedulers = [
    BenchScheduler("event-loop") { EventLoopScheduler(name: "bench.event-loop") }
]
// A scheduler that traps, to show `--isolate`: only the benchmark it traps
// in loses its rows (CI sets the variable; nobody else needs it).
if ProcessInfo.processInfo.environment["EVENT_LOOP_EXAMPLE_TRAP"] != nil {
    schedulers.append(BenchScheduler("trapping-loop") { TrappingScheduler() }.only([.recursion]))
}
BenchRunnerMain.run(registering: schedulers)

/// Traps on its first action.
final class TrappingScheduler: ImmediateScheduler, @unchecked Sendable {
    func schedule<StateType>(_ state: StateType, action: @escaping (StateType) -> Disposable) -> Disposable {
        fatalError("TrappingScheduler: trapped on purpose (EVENT_LOOP_EXAMPLE_TRAP)")
    }
}
