// EventLoopScheduler, described once and handed to both tools:
//   MyEventLoop bench …   BenchRunner's command line (--quick, --filter, list, compare; see bench --help)
//   MyEventLoop stress …  Stress's command line (--filter, --iterations, --seed, --list; see stress --help)
import EventLoop
import Foundation
import SchedulerTools
import Schedulers

let eventLoop = SchedulerRegistration(
    "event-loop",
    // The loop's own thread, kept when it starts: a thread's name does not
    // tell threads apart on Linux.
    isCurrent: { $0.isOnLoopThread },
    // The loop's thread runs until it is stopped: every scheduler a
    // benchmark session or a stress scenario makes is stopped when done.
    teardown: { $0.stop() }
) { EventLoopScheduler(name: "event-loop") }

var registrations = [eventLoop]
var benchOnly: [BenchScheduler] = []
// A scheduler that traps, to show `bench --isolate`: only the benchmark it
// traps in loses its rows (CI sets the variable; nobody else needs it).
if ProcessInfo.processInfo.environment["EVENT_LOOP_EXAMPLE_TRAP"] != nil {
    benchOnly.append(BenchScheduler(SchedulerRegistration("trapping-loop") { TrappingScheduler() }).only([.recursion]))
}
// The registration mistake the check catches before anything runs: an
// isCurrent that compares thread names, which never match on Linux. Either
// tool exits 2 naming the registration (CI sets the variable).
if ProcessInfo.processInfo.environment["EVENT_LOOP_EXAMPLE_NAME_CHECK"] != nil {
    registrations.append(SchedulerRegistration(
        "named-event-loop", isCurrent: { _ in Thread.current.name == "named-event-loop" }, teardown: { $0.stop() }
    ) { EventLoopScheduler(name: "named-event-loop") })
}
SchedulerToolsMain.run(registering: registrations, bench: benchOnly)

/// Traps on its first action.
final class TrappingScheduler: ImmediateScheduler, @unchecked Sendable {
    func schedule<StateType>(_ state: StateType, action: @escaping (StateType) -> Disposable) -> Disposable {
        fatalError("TrappingScheduler: trapped on purpose (EVENT_LOOP_EXAMPLE_TRAP)")
    }
}
