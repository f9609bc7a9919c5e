import Foundation
import XCTest

@testable import Schedulers

/// The three rules that let `TrampolineItem.payload` go without Swift's
/// run-time exclusivity checks (its doc comment states them), one test
/// each, and the rule that lets a trampoline entry's runner cast it without
/// a check (`TrampolineWork`'s doc comment). Debug builds assert each rule
/// where it is relied on, so a broken rule stops these tests there; under
/// ASan (scripts/test-sanitizers.sh) a payload freed twice or read after
/// its release is reported.
final class TrampolineItemInvariantTests: XCTestCase {
    private let scheduler = CurrentThreadScheduler.instance

    /// Rule 1: only the owner's thread touches the payload. A queued item
    /// disposed from another thread is left alone by that thread: its state
    /// is released on the trampoline's own thread, when the drain skips it.
    func testRuleOneAPayloadIsReleasedOnlyOnItsTrampolinesThread() {
        let releasedOn = ThreadRecorder()
        var ranOn: pthread_t?
        _ = scheduler.schedule(()) { _ in
            ranOn = pthread_self()
            for _ in 0..<20 {
                let ticket = self.scheduler.schedule(ReleaseWitness(releasedOn)) { _ in Disposables.create() }
                disposeOnAnotherThreadAndWait(ticket)
                XCTAssertEqual(releasedOn.threads.count, 0, "a disposer on another thread must not release the payload")
            }
            return Disposables.create()
        }
        XCTAssertEqual(releasedOn.threads.count, 20, "every skipped item's state is released")
        for thread in releasedOn.threads {
            XCTAssertNotEqual(ranOn.map { pthread_equal($0, thread) }, 0, "released on another thread than the trampoline's")
        }
    }

    /// Rule 2: no access to the payload stays open while other code runs.
    /// Here that other code is the state's deinit, run when the payload is
    /// released (after the action ran, and at a disposal on the owner's
    /// thread), and it goes back into the same trampoline: it schedules, and
    /// disposes another queued item. Every action that should run does, in
    /// order, and every state is released once.
    func testRuleTwoReleasingAPayloadMayReenterTheTrampoline() {
        var log: [String] = []
        var released = 0
        _ = scheduler.schedule(()) { _ in
            var victim: Disposable?
            let reentrant = Reentrant {
                released += 1
                victim?.dispose()
                _ = self.scheduler.schedule("from deinit") { name in
                    log.append(name)
                    return Disposables.create()
                }
            }
            _ = self.scheduler.schedule(reentrant) { _ in
                log.append("reentrant ran")
                return Disposables.create()
            }
            victim = self.scheduler.schedule("victim") { name in
                log.append(name)
                return Disposables.create()
            }
            let disposedAtOnce = Reentrant {
                released += 1
                _ = self.scheduler.schedule("from a disposal's deinit") { name in
                    log.append(name)
                    return Disposables.create()
                }
            }
            self.scheduler.schedule(disposedAtOnce) { _ in
                log.append("disposed item ran")
                return Disposables.create()
            }.dispose()
            return Disposables.create()
        }
        XCTAssertEqual(released, 2)
        XCTAssertEqual(
            log, ["reentrant ran", "from a disposal's deinit", "from deinit"],
            "the victim, disposed by a deinit while queued, is skipped; the deinits' schedules run in queue order")
    }

    /// Rule 3: an entry's kind names its class, so the spare of one state
    /// type is never handed to a schedule of another. Schedules of several
    /// state types interleave on one thread, each reusing the spare its
    /// type left, and each action receives exactly its own state.
    func testRuleThreeASpareIsReusedOnlyForItsOwnStateType() {
        var received: [String] = []
        let levels = 300
        func step(_ level: Int) -> Disposable {
            received.append("int \(level)")
            guard level < levels else { return Disposables.create() }
            switch level % 3 {
            case 0:
                return scheduler.schedule("string \(level + 1)") { text in
                    received.append(text)
                    return step(level + 1)
                }
            case 1:
                return scheduler.schedule(Box(level + 1)) { box in
                    received.append("box \(box.value)")
                    return step(box.value)
                }
            default:
                return scheduler.schedule(level + 1, action: step)
            }
        }
        _ = scheduler.schedule(0, action: step)
        var expected: [String] = []
        for level in 0...levels {
            if level > 0 {
                switch (level - 1) % 3 {
                case 0: expected.append("string \(level)")
                case 1: expected.append("box \(level)")
                default: break
                }
            }
            expected.append("int \(level)")
        }
        XCTAssertEqual(received, expected)
    }

    /// The entries' rule: a runner is only called with the entry that
    /// stores it. Every kind of entry is queued on one trampoline,
    /// interleaved: items of two state types, a recursion whose first step
    /// is queued, and the extra step a recursion queues when it fans out.
    /// Each runs once, in queue order, with its own state; a runner handed
    /// another kind of entry would stop at the debug build's check.
    func testRunnersAreCalledOnlyWithTheirOwnEntries() {
        var log: [String] = []
        _ = scheduler.schedule(()) { _ in
            _ = self.scheduler.schedule(1) { value in
                log.append("item \(value)")
                return Disposables.create()
            }
            _ = self.scheduler.scheduleRecursive(10) { value, recurse in
                log.append("recursion \(value)")
                if value == 10 {
                    // Two pending steps: the second is an extra entry.
                    recurse(11)
                    recurse(12)
                }
            }
            _ = self.scheduler.schedule("two") { text in
                log.append("item \(text)")
                return Disposables.create()
            }
            return Disposables.create()
        }
        XCTAssertEqual(log, ["item 1", "recursion 10", "item two", "recursion 11", "recursion 12"])
    }

    /// The count of queued entries that the inlined paths read (`isEmpty`:
    /// the outermost action drains only when something is queued, and a
    /// recursion's next step runs in place only when nothing is) counts
    /// exactly what is queued, and nothing once the queue has drained. A
    /// generated mutant that started it at one passed every other test:
    /// every entry still ran, in order, only never in place.
    func testTheQueuedCountIsExactAndZeroOnceTheQueueHasDrained() {
        var emptyAt: [Bool] = []
        _ = scheduler.schedule(()) { _ in
            _ = self.scheduler.schedule(()) { _ in
                emptyAt.append(Trampoline.existing?.isEmpty ?? false)
                return Disposables.create()
            }
            _ = self.scheduler.schedule(()) { _ in
                emptyAt.append(Trampoline.existing?.isEmpty ?? false)
                return Disposables.create()
            }
            emptyAt.append(Trampoline.existing?.isEmpty ?? true)
            return Disposables.create()
        }
        XCTAssertEqual(emptyAt, [false, false, true], "two queued, then one, then none")
        XCTAssertEqual(Trampoline.existing?.isEmpty, true, "nothing is queued once the outermost action has returned")
    }
}

/// Records the threads `ReleaseWitness`es were released on.
private final class ThreadRecorder: @unchecked Sendable {
    // @unchecked: `threads` is written under `lock`.
    private let lock = NSLock()
    private var recorded: [pthread_t] = []

    var threads: [pthread_t] {
        lock.withLock { recorded }
    }

    func record() {
        lock.withLock { recorded.append(pthread_self()) }
    }
}

/// A state that notes the thread it is released on.
private final class ReleaseWitness {
    let recorder: ThreadRecorder

    init(_ recorder: ThreadRecorder) {
        self.recorder = recorder
    }

    deinit {
        recorder.record()
    }
}

/// A state whose deinit runs `onDeinit`.
private final class Reentrant {
    let onDeinit: () -> Void

    init(_ onDeinit: @escaping () -> Void) {
        self.onDeinit = onDeinit
    }

    deinit {
        onDeinit()
    }
}

private final class Box {
    let value: Int

    init(_ value: Int) {
        self.value = value
    }
}
