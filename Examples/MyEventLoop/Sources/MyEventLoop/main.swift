// EventLoopScheduler, described once (MyEventLoopRegistrations) and handed to both tools:
//   MyEventLoop bench …   BenchRunner's command line (--quick, --filter, list, compare; see bench --help)
//   MyEventLoop stress …  Stress's command line (--filter, --iterations, --seed, --list; see stress --help)
import EventLoopRegistrations
import Foundation
import SchedulerTools
import Schedulers

var benchOnly: [BenchScheduler] = []
// A scheduler that traps, to show `bench --isolate`: only the benchmark it
// traps in loses its rows (CI sets the variable; nobody else needs it).
if ProcessInfo.processInfo.environment["EVENT_LOOP_EXAMPLE_TRAP"] != nil {
    benchOnly.append(BenchScheduler(SchedulerRegistration("trapping-loop") { TrappingScheduler() }).only([.recursion]))
}
SchedulerToolsMain.run(registering: MyEventLoopRegistrations.all(), bench: benchOnly)

/// Traps on its first action.
final class TrappingScheduler: ImmediateScheduler, @unchecked Sendable {
    func schedule<StateType>(_ state: StateType, action: @escaping (StateType) -> Disposable) -> Disposable {
        fatalError("TrappingScheduler: trapped on purpose (EVENT_LOOP_EXAMPLE_TRAP)")
    }
}
