@testable import BenchKit
import Foundation
import XCTest

/// `scale.liveSubscriptions`: what its timed flood covers, and a whole run at a small N.
final class LiveSubscriptionScaleTests: XCTestCase {
    /// Frees a `Canary` last: records when it went.
    final class Canary: @unchecked Sendable {
        private let onFree: () -> Void
        init(onFree: @escaping () -> Void) { self.onFree = onFree }
        deinit { onFree() }
    }

    /// What `timeFlood(keeping:)` is handed is freed after the clock stopped
    /// at the last delivery, never inside the timed window.
    func testTheFloodsLiveStateIsFreedOnlyAfterTheClockStopped() throws {
        let gate = DeliveryGate(expected: 0)
        var freedAt: UInt64 = 0
        var liveDuringFlood = 0
        weak var watched: Canary?
        let perDelivery = try LiveSubscriptionScaleBenchmark.timeFlood(
            keeping: [Canary { freedAt = MeasureContext.now() }].map { canary in
                watched = canary
                return canary
            },
            deliveries: 100, gate: gate, variant: "test"
        ) { _ in
            if watched != nil { liveDuringFlood += 1 }
            gate.deliver()
        }
        XCTAssertEqual(gate.delivered, 100)
        XCTAssertEqual(liveDuringFlood, 100)
        XCTAssertGreaterThan(perDelivery, 0)
        XCTAssertNil(watched)
        XCTAssertGreaterThanOrEqual(freedAt, gate.finishedAt)
    }

    /// A run at a small N primes every subscription and delivers the whole
    /// flood through the newest, on both variants.
    func testARunDeliversTheFloodWithEveryPointsSubscriptionsLive() throws {
        let context = MeasureContext(counter: .disabled, configuration: .tiny(recursionProbe: nil))
        for n in [1, 150] {
            let library = try LiveSubscriptionScaleBenchmark.library(n, 300, context)
            XCTAssertGreaterThan(library.nanosecondsPerDelivery, 0)
            XCTAssertNil(library.liveBytes)
            let peer = try LiveSubscriptionScaleBenchmark.openCombine(n, 300, context)
            XCTAssertGreaterThan(peer.nanosecondsPerDelivery, 0)
        }
    }
}
