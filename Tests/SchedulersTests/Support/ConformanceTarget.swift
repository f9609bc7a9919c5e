import Dispatch
import Foundation
import Schedulers
import SchedulersTesting
import Testing

/// Every scheduler the library ships, one case each: the argument of
/// `SchedulerConformanceTests`, which checks the guarantees they all share.
enum ConformanceKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case currentThread
    case serialDispatchQueue
    case concurrentDispatchQueue
    case operationQueue
    /// `MainScheduler.instance`, scheduled from the test's thread (Swift
    /// Testing runs tests off the main thread). The main queue is driven by
    /// the test process's main thread, which drains it while tests run.
    case main
    /// `TestScheduler` without its processing delay, so that work due now
    /// runs at the current tick, as on every other scheduler.
    case testScheduler
    case historical

    var testDescription: String { rawValue }

    /// The kinds that keep time (`Scheduler`): every one but current-thread,
    /// which only runs work as soon as it can.
    static let timed = allCases.filter { $0 != .currentThread }

    /// A new scheduler of this kind (the main scheduler is the one instance).
    func make() -> ConformanceTarget {
        ConformanceTarget(kind: self)
    }
}

/// A scheduler made for one conformance test, with what the test needs to
/// drive it whatever its kind: a stretch in which nothing scheduled starts
/// (`whileHeld`), and a wait until all it was given has run (`runUntilIdle`).
final class ConformanceTarget: @unchecked Sendable {
    let kind: ConformanceKind
    let scheduler: any ImmediateScheduler
    /// The dispatch-backed kinds' queue, which the target holds and waits on.
    private let dispatchTarget: SchedulerUnderTest?

    fileprivate init(kind: ConformanceKind) {
        self.kind = kind
        switch kind {
        case .currentThread:
            scheduler = CurrentThreadScheduler.instance
            dispatchTarget = nil
        case .serialDispatchQueue, .concurrentDispatchQueue, .operationQueue:
            let dispatchKind: SchedulerKind = switch kind {
            case .serialDispatchQueue: .serialDispatchQueue
            case .concurrentDispatchQueue: .concurrentDispatchQueue
            default: .operationQueue
            }
            let target = dispatchKind.make(label: "conformance.\(kind)")
            scheduler = target.scheduler
            dispatchTarget = target
        case .main:
            scheduler = MainScheduler.instance
            dispatchTarget = nil
        case .testScheduler:
            scheduler = TestScheduler(initialClock: 20, simulateProcessingDelay: false)
            dispatchTarget = nil
        case .historical:
            scheduler = HistoricalScheduler(initialClock: Date(timeIntervalSince1970: 5_000))
            dispatchTarget = nil
        }
    }

    /// The scheduler, for the kinds that keep time (`ConformanceKind.timed`).
    var timed: any Scheduler {
        guard let timed = scheduler as? any Scheduler else {
            preconditionFailure("\(kind) keeps no time: use ConformanceKind.timed")
        }
        return timed
    }

    /// Whether the scheduler keeps virtual time: its clock moves only when
    /// it runs work, so "now" is exact.
    var isVirtual: Bool {
        kind == .testScheduler || kind == .historical
    }

    /// Runs `body` in a stretch during which nothing scheduled on the
    /// scheduler starts; what `body` scheduled may start once it returns.
    ///
    /// Current-thread: `body` runs as an action of the trampoline, so what it
    /// schedules is queued behind it. Dispatch kinds: the queue is held.
    /// Main: a block on the main queue holds it. Virtual time: nothing runs
    /// before `runUntilIdle()` starts the clock.
    func whileHeld(_ body: () -> Void) {
        switch kind {
        case .currentThread:
            #expect(CurrentThreadScheduler.isScheduleRequired, "the test must start outside any trampoline")
            // The trampoline runs the action before `schedule` returns; the
            // closure does not escape that call.
            withoutActuallyEscaping(body) { body in
                _ = CurrentThreadScheduler.instance.schedule(()) { _ in
                    body()
                    return Disposables.create()
                }
            }
        case .serialDispatchQueue, .concurrentDispatchQueue, .operationQueue:
            dispatchTarget!.hold()
            body()
            dispatchTarget!.release()
        case .main:
            let entered = DispatchSemaphore(value: 0)
            let gate = DispatchSemaphore(value: 0)
            DispatchQueue.main.async {
                entered.signal()
                gate.wait()
            }
            #expect(entered.wait(timeout: .now() + 10) == .success, "the main queue is not being drained")
            body()
            gate.signal()
        case .testScheduler, .historical:
            body()
        }
    }

    /// Waits until everything the scheduler was given has run (virtual
    /// time: runs the clock until nothing is queued), then checks
    /// `condition`; on real threads, waits up to 10 s for it to hold.
    func runUntilIdle(until condition: () -> Bool = { true }) -> Bool {
        switch kind {
        case .currentThread:
            // Everything ran before `schedule` returned.
            return condition()
        case .serialDispatchQueue, .concurrentDispatchQueue, .operationQueue:
            return dispatchEventually(timeout: 10, condition) && dispatchTarget!.waitUntilIdle()
        case .main:
            guard dispatchEventually(timeout: 10, condition) else { return false }
            let marker = DispatchSemaphore(value: 0)
            DispatchQueue.main.async { marker.signal() }
            return marker.wait(timeout: .now() + 10) == .success
        case .testScheduler:
            (scheduler as! TestScheduler).start()
            return condition()
        case .historical:
            (scheduler as! HistoricalScheduler).start()
            return condition()
        }
    }
}
