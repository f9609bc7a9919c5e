@testable import BenchKit
import Dispatch
import Schedulers
import XCTest

final class SubscriptionLifecycleTests: XCTestCase {
    /// Wraps a session and counts what the runner asks of it.
    final class Counting<Inner: SubscriptionLifecycle>: SubscriptionLifecycle {
        let inner: Inner
        var subscribed = 0
        var disposed = 0
        init(_ inner: Inner) { self.inner = inner }
        func subscribe(_ token: LifecycleToken) -> Inner.Handle {
            subscribed += 1
            return inner.subscribe(token)
        }
        func dispose(_ handle: Inner.Handle) {
            disposed += 1
            inner.dispose(handle)
        }
        func close() { inner.close() }
    }

    /// Delivers on a queue but keeps every observer forever: step 4 never ends.
    final class LeakingLifecycle: SubscriptionLifecycle {
        let queue = DispatchQueue(label: "test.leaking")
        var kept: [LifecycleToken] = []
        func subscribe(_ token: LifecycleToken) -> Int {
            kept.append(token)
            queue.async { token.delivered() }
            return 0
        }
        func dispose(_ handle: Int) {}
        func close() {}
    }

    func testEveryLibraryAndPeerSessionCompletesItsLifecyclesAroundTheMeasuredOnes() throws {
        let sessions: [(String, () -> any SubscriptionLifecycle)] = [
            ("fast-path", { LibraryLifecycle(scheduler: SerialDispatchQueueScheduler(internalSerialQueueName: "t.fast"), path: .automatic) }),
            ("generic", { LibraryLifecycle(scheduler: SerialDispatchQueueScheduler(internalSerialQueueName: "t.generic"), path: .generic) }),
            ("current-thread", { LibraryLifecycle(scheduler: CurrentThreadScheduler.instance, path: .automatic) }),
            ("peer.opencombine", { OpenCombineLifecycle() }),
        ]
        for (name, make) in sessions {
            try check(make(), name: name)
        }
    }

    private func check<Session: SubscriptionLifecycle>(_ session: Session, name: String) throws {
        let counting = Counting(session)
        var subscribedBefore = -1
        var subscribedAfter = -1
        try LifecycleRunner.run(
            counting, variant: name, warmUp: 3, lifecycles: 7, requireMainThread: false
        ) { body in
            subscribedBefore = counting.subscribed
            try body()
            subscribedAfter = counting.subscribed
        }
        XCTAssertEqual(subscribedBefore, 3, name)
        XCTAssertEqual(subscribedAfter, 10, name)
        XCTAssertEqual(counting.disposed, 10, name)
    }

    func testAChainThatNeverReleasesItsObserverFailsInsteadOfHanging() {
        XCTAssertThrowsError(
            try LifecycleRunner.run(
                LeakingLifecycle(), variant: "leaking", warmUp: 0, lifecycles: 2, requireMainThread: false,
                timeoutNanoseconds: 50_000_000, around: { try $0() })
        ) { error in
            XCTAssertTrue("\(error)".contains("leaking: subscription 1 did not release its observer"), "\(error)")
        }
    }

    func testTheMainVariantRefusesToRunOnTheMainThread() throws {
        guard MainQueueDriver.isMainThread else { throw XCTSkip("the test does not run on the main thread") }
        XCTAssertThrowsError(
            try LifecycleRunner.run(
                LibraryLifecycle(scheduler: MainScheduler.instance, path: .automatic), variant: "main", warmUp: 0,
                lifecycles: 1, requireMainThread: true, around: { try $0() }))
    }
}
