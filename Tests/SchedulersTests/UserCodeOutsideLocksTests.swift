import Dispatch
import Foundation
import Schedulers
import Synchronization
import XCTest

/// No user code runs under a lock of the library: what disposal drops (a
/// queued element, a pending error, a recursion's action) is destroyed after
/// the lock is released, so a deinit that calls back into the same object
/// finds it unlocked. Each test disposes on a thread of its own and fails,
/// instead of hanging, when the disposal never returns.
final class UserCodeOutsideLocksTests: XCTestCase {
    /// An element that, when destroyed, sends a plain element into the chain.
    final class Reentrant: @unchecked Sendable {
        let value: Int
        let sendOnDeinit: AnyObserver<Reentrant>?
        let deinits: Counter

        init(_ value: Int, sendOnDeinit: AnyObserver<Reentrant>?, deinits: Counter) {
            self.value = value
            self.sendOnDeinit = sendOnDeinit
            self.deinits = deinits
        }

        deinit {
            deinits.add()
            sendOnDeinit?.onNext(Reentrant(-1, sendOnDeinit: nil, deinits: deinits))
        }
    }

    struct ReentrantError: Error, @unchecked Sendable {
        let payload: Reentrant
    }

    final class Counter: Sendable {
        private let count = Atomic<Int>(0)
        func add() { count.wrappingAdd(1, ordering: .relaxed) }
        var value: Int { count.load(ordering: .relaxed) }
    }

    /// Runs `body` on a thread of its own; whether it returned within 10 s.
    private func returns(_ body: @escaping @Sendable () -> Void) -> Bool {
        let done = DispatchSemaphore(value: 0)
        Thread {
            body()
            done.signal()
        }.start()
        return done.wait(timeout: .now() + 10) == .success
    }

    private func assertDisposeReturnsWithQueuedReentrantEvents(on scheduler: ImmediateScheduler, path: ObserveOnPath, failing: Bool) {
        let deinits = Counter()
        let sender = LockedBox<AnyObserver<Reentrant>?>(nil)
        let delivered = Mutex<[Int]>([])
        let subscription = Observable<Reentrant>.create { observer in
            sender.set(observer)
            return Disposables.create()
        }
        .observe(on: scheduler, path: path)
        .subscribe(onNext: { element in delivered.withLock { $0.append(element.value) } })
        // Hold the scheduler so that the elements stay queued in observe(on:).
        let release = DispatchSemaphore(value: 0)
        let holding = DispatchSemaphore(value: 0)
        _ = scheduler.schedule(()) { _ in
            holding.signal()
            release.wait()
            return Disposables.create()
        }
        XCTAssertEqual(holding.wait(timeout: .now() + 10), .success)
        let observer = sender.get()!
        for value in 0..<3 {
            observer.onNext(Reentrant(value, sendOnDeinit: observer, deinits: deinits))
        }
        if failing {
            observer.onError(ReentrantError(payload: Reentrant(3, sendOnDeinit: observer, deinits: deinits)))
        }
        let disposable = SendableBox(subscription)
        XCTAssertTrue(returns { disposable.value.dispose() }, "dispose() never returned: a deinit re-entered a held lock")
        release.signal()
        // The dropped elements (and error) were destroyed by dispose, each
        // sending one more element, which was dropped and destroyed too.
        let sent = failing ? 4 : 3
        XCTAssertEqual(deinits.value, 2 * sent)
        XCTAssertEqual(delivered.withLock { $0 }, [], "nothing queued before dispose is delivered after it")
    }

    func testObserveOnDisposeReturnsWhenAQueuedElementsDeinitSendsIntoTheSameChain() {
        assertDisposeReturnsWithQueuedReentrantEvents(
            on: SerialDispatchQueueScheduler(internalSerialQueueName: "test.reentry"), path: .automatic, failing: false)
    }

    func testObserveOnDisposeReturnsWhenAPendingErrorsDeinitSendsIntoTheSameChain() {
        assertDisposeReturnsWithQueuedReentrantEvents(
            on: SerialDispatchQueueScheduler(internalSerialQueueName: "test.reentry"), path: .automatic, failing: true)
    }

    func testObserveOnGenericPathDisposeReturnsWhenAQueuedElementsDeinitSendsIntoTheSameChain() {
        assertDisposeReturnsWithQueuedReentrantEvents(
            on: SerialDispatchQueueScheduler(internalSerialQueueName: "test.reentry"), path: .generic, failing: true)
    }

    /// An object whose deinit asks the recursion whether it is disposed.
    final class AsksOnDeinit: @unchecked Sendable {
        let recursion = LockedBox<Disposable?>(nil)
        let asked: Counter

        init(asked: Counter) {
            self.asked = asked
        }

        deinit {
            if let recursion = recursion.get() as? Cancelable {
                _ = recursion.isDisposed
                asked.add()
            }
        }
    }

    func testDisposingARecursionDestroysItsActionOutsideItsLock() {
        let scheduler = SerialDispatchQueueScheduler(internalSerialQueueName: "test.recursion")
        let asked = Counter()
        let ran = DispatchSemaphore(value: 0)
        // The holder, the recursion and its action form a cycle that only
        // dispose() breaks: the holder's deinit then runs inside dispose().
        let recursion: Disposable = {
            let holder = AsksOnDeinit(asked: asked)
            let recursion = scheduler.scheduleRecursive(0, dueTime: .seconds(60)) { _, _ in
                _ = holder
                ran.signal()
            }
            holder.recursion.set(recursion)
            return recursion
        }()
        XCTAssertEqual(asked.value, 0)
        let disposable = SendableBox(recursion)
        XCTAssertTrue(returns { disposable.value.dispose() }, "dispose() never returned: the action's deinit re-entered the recursion's lock")
        XCTAssertEqual(ran.wait(timeout: .now() + 0.2), .timedOut, "the disposed recursion never ran")
        XCTAssertEqual(asked.value, 1, "the action and what it captured were destroyed by dispose")
    }
}

/// Hands a value the test owns to the thread that disposes it.
final class SendableBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// A value behind a lock, for values that are not `Sendable`.
final class LockedBox<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func get() -> Value { lock.withLock { value } }
    func set(_ newValue: Value) { lock.withLock { value = newValue } }
}
