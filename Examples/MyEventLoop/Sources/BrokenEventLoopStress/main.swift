// Stress-tests the deliberately broken RacyEventLoopScheduler: run it with
// --filter racy-event-loop; it must report a forbidden outcome and exit 1.
import EventLoop
import StressKit

StressMain.run(registering: [
    StressScheduler("racy-event-loop", isCurrent: { $0.isOnLoopThread }) {
        RacyEventLoopScheduler(name: "stress.racy-event-loop")
    }
])
