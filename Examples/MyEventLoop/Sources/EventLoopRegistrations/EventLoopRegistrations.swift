// The example's schedulers described once, for every executable of the
// package: MyEventLoop and BrokenEventLoop run both tools
// (SchedulerToolsMain), MyEventLoopStress and BrokenEventLoopStress the same
// registrations through Stress alone, so that a build of the stress leg
// (CI's ThreadSanitizer build) compiles no benchmark and no peer.
import EventLoop
import Foundation
import Schedulers
import StressKit

/// The registrations of MyEventLoop (and MyEventLoopStress).
public enum MyEventLoopRegistrations {
    /// `event-loop`, and with EVENT_LOOP_EXAMPLE_NAME_CHECK set (CI sets it)
    /// the registration mistake the check catches before anything runs: an
    /// isCurrent that compares thread names, which never match on Linux.
    /// Either tool exits 2 naming it.
    public static func all() -> [SchedulerRegistration] {
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
        if ProcessInfo.processInfo.environment["EVENT_LOOP_EXAMPLE_NAME_CHECK"] != nil {
            registrations.append(SchedulerRegistration(
                "named-event-loop", isCurrent: { _ in Thread.current.name == "named-event-loop" }, teardown: { $0.stop() }
            ) { EventLoopScheduler(name: "named-event-loop") })
        }
        return registrations
    }
}

/// The registrations of BrokenEventLoop (and BrokenEventLoopStress): the
/// deliberately broken RacyEventLoopScheduler, registered as a user
/// registers EventLoopScheduler; `stress --filter racy-event-loop` must
/// report a forbidden outcome and exit 1.
public enum BrokenEventLoopRegistrations {
    /// `racy-event-loop`.
    public static func all() -> [SchedulerRegistration] {
        [
            SchedulerRegistration("racy-event-loop", isCurrent: { $0.isOnLoopThread }, teardown: { $0.stop() }) {
                RacyEventLoopScheduler(name: "racy-event-loop")
            }
        ]
    }

    /// With EVENT_LOOP_EXAMPLE_FAULTS set (CI sets it), two more schedulers
    /// show that a fault in the scheduler under test is a reported outcome,
    /// never the harness's own hang or crash: `deadlocking-event-loop`, whose
    /// 200th `dispose()` deadlocks, is reported `hung` with every thread's
    /// stack, and `trapping-event-loop`, whose 100th action traps, is
    /// reported `crashed` with its signal; the scenarios after them still
    /// run. Empty otherwise.
    public static func stressOnly() -> [StressScheduler] {
        guard ProcessInfo.processInfo.environment["EVENT_LOOP_EXAMPLE_FAULTS"] != nil else { return [] }
        return [FaultyEventLoopScheduler.Fault.deadlockingDispose, .trappingAction].map { fault in
            StressScheduler(SchedulerRegistration(fault.name, teardown: { $0.stop() }) {
                FaultyEventLoopScheduler(fault: fault)
            })
        }
    }
}
