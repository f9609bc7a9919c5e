import XCTest
@testable import ToolSupport

/// Both tools' --filter rule: a whole name, or whole words starting a part.
final class NameFilterTests: XCTestCase {
    private func selects(_ text: String, _ name: String) -> Bool {
        NameFilter.text(text, selects: name)
    }

    func testAWordThatEndsAnotherWordSelectsNothing() {
        XCTAssertFalse(selects("loop", "broken-loop"))
        XCTAssertFalse(selects("loop", "dispose-vs-action.broken-loop"))
        XCTAssertFalse(selects("event-loop", "dispose-vs-action.racy-event-loop"))
        XCTAssertFalse(selects("event-loop", "observeOn.throughput/racy-event-loop.generic"))
    }

    func testWholeWordsStartingAPartSelect() {
        XCTAssertTrue(selects("event-loop", "dispose-vs-action.event-loop"))
        XCTAssertTrue(selects("event-loop", "dispose-vs-observeOn.event-loop-generic-path"))
        XCTAssertTrue(selects("event-loop", "observeOn.throughput/event-loop.generic"))
        XCTAssertTrue(selects("event-loop", "periodic.drift/event-loop.emulated"))
        XCTAssertTrue(selects("dispose-vs", "dispose-vs-action.serial-dispatch"))
        XCTAssertTrue(selects("observeOn", "observeOn.latency/fast-path"))
        XCTAssertTrue(selects("throughput", "observeOn.throughput/fast-path"))
        XCTAssertTrue(selects("peer.nio", "observeOn.throughput/peer.nio"))
        XCTAssertTrue(selects("observeOn.latency/fast-path", "observeOn.latency/fast-path"))
        XCTAssertTrue(selects("scale.liveSubscriptions/fast-path", "scale.liveSubscriptions/fast-path"))
    }

    func testAWordCutShortSelectsNothing() {
        XCTAssertFalse(selects("event-lo", "dispose-vs-action.event-loop"))
        XCTAssertFalse(selects("fast", "observeOn.throughput/fastest"))
        XCTAssertFalse(selects("observeOn.through", "observeOn.throughput/fast-path"))
    }

    func testATextStartingWithASeparatorAnchorsOnIt() {
        XCTAssertTrue(selects(".event-loop", "dispose-vs-action.event-loop"))
        XCTAssertTrue(selects(".event-loop", "dispose-vs-observeOn.event-loop-generic-path"))
        XCTAssertFalse(selects(".event-loop", "dispose-vs-action.racy-event-loop"))
        XCTAssertTrue(selects("/fast-path", "observeOn.latency/fast-path"))
    }

    func testTheWholeNameAndNothingElseForAnEmptyText() {
        XCTAssertTrue(selects("broken-loop", "broken-loop"))
        XCTAssertFalse(selects("", "broken-loop"))
        XCTAssertFalse(selects("dispose-vs-action.event-loop.x", "dispose-vs-action.event-loop"))
        XCTAssertTrue(NameFilter.any(of: ["nothing", "event-loop"], selects: "x.event-loop"))
        XCTAssertFalse(NameFilter.any(of: [], selects: "x.event-loop"))
    }
}
