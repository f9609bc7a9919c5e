// Stress-tests EventLoopScheduler beside the library's schedulers, with
// Stress's command line: --filter, --iterations, --seed, --list, --csv (see --help).
import EventLoop
import StressKit

StressMain.run(registering: [
    StressScheduler("event-loop", isCurrent: { $0.isOnLoopThread }) { EventLoopScheduler(name: "stress.event-loop") }
])
