@testable import Schedulers
@testable import StressKit
import XCTest

/// `SyncStep` mirrors the library's internal `SyncPointKind` (the hook passes
/// only the raw value across): the two must name the same steps by the same
/// numbers, or the controller would misread what a thread is about to do.
final class SyncStepMirrorTests: XCTestCase {
    func testEveryStepHasTheLibrarysKindOfTheSameNameAndRawValue() {
        for step in SyncStep.allCases {
            guard let kind = SyncPointKind(rawValue: step.rawValue) else {
                return XCTFail("the library has no sync point kind \(step.rawValue) (\(step))")
            }
            XCTAssertEqual(String(describing: kind), String(describing: step))
        }
    }

    func testTheLibraryHasNoKindTheControllerCannotRead() {
        let known = Set(SyncStep.allCases.map(\.rawValue))
        for raw in UInt8.min...UInt8.max where !known.contains(raw) {
            XCTAssertNil(SyncPointKind(rawValue: raw), "the library's kind \(raw) has no SyncStep")
        }
    }
}
