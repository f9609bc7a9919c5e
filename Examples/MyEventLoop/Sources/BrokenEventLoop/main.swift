// The deliberately broken RacyEventLoopScheduler, registered as a user
// registers EventLoopScheduler: run `BrokenEventLoop stress --filter
// racy-event-loop`; it must report a forbidden outcome and exit 1. With
// EVENT_LOOP_EXAMPLE_FAULTS set, a deadlocking and a trapping scheduler too
// (BrokenEventLoopRegistrations.stressOnly()).
import EventLoopRegistrations
import SchedulerTools

SchedulerToolsMain.run(
    registering: BrokenEventLoopRegistrations.all(), stress: BrokenEventLoopRegistrations.stressOnly())
