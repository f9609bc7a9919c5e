import Foundation
import XCTest

@testable import Schedulers

final class HistoricalSchedulerTests: XCTestCase {
    private let day: TimeInterval = 86_400

    func testInitialClockDefaultsToTheUnixEpoch() {
        let scheduler = HistoricalScheduler()
        XCTAssertEqual(scheduler.clock, Date(timeIntervalSince1970: 0))
        XCTAssertEqual(scheduler.now, Date(timeIntervalSince1970: 0))
    }

    func testAdvanceToADateRunsWhatIsDueAndSetsTheClock() {
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        let scheduler = HistoricalScheduler(initialClock: start)
        var log: [Date] = []
        for offset in [3 * day, day, 2 * day] {
            _ = scheduler.scheduleAbsoluteVirtual((), time: start.addingTimeInterval(offset)) { _ in
                log.append(scheduler.now)
                return Disposables.create()
            }
        }
        scheduler.advanceTo(start.addingTimeInterval(2 * day))
        XCTAssertEqual(log, [start.addingTimeInterval(day), start.addingTimeInterval(2 * day)])
        scheduler.advanceTo(start.addingTimeInterval(10 * day))
        XCTAssertEqual(log.count, 3)
        XCTAssertEqual(scheduler.clock, start.addingTimeInterval(10 * day))
    }

    func testScheduleRelativeAddsTheIntervalToTheClock() {
        let start = Date(timeIntervalSince1970: 1_000)
        let scheduler = HistoricalScheduler(initialClock: start)
        var ranAt: Date?
        _ = scheduler.scheduleRelative((), dueTime: .milliseconds(1_500)) { _ in
            ranAt = scheduler.now
            return Disposables.create()
        }
        _ = scheduler.scheduleRelativeVirtual((), dueTime: 10) { _ in
            XCTAssertEqual(scheduler.now, start.addingTimeInterval(10))
            return Disposables.create()
        }
        scheduler.start()
        XCTAssertEqual(ranAt, start.addingTimeInterval(1.5))
    }

    func testPeriodicJobTicksOnFixedDates() {
        let start = Date(timeIntervalSince1970: 1_000_000)
        let scheduler = HistoricalScheduler(initialClock: start)
        var dates: [Date] = []
        let job = scheduler.schedulePeriodic((), startAfter: .seconds(60), period: .seconds(3_600)) { _ in
            dates.append(scheduler.now)
            scheduler.sleep(90)
        }
        scheduler.advanceTo(start.addingTimeInterval(60 + 23 * 3_600))
        job.dispose()
        XCTAssertEqual(dates, (0..<24).map { start.addingTimeInterval(60 + Double($0) * 3_600) })
    }

    func testMillisecondPeriodsOnAPresentDayClockDoNotDrift() {
        // Near 2026 a Date resolves about 0.2 µs, so a single tick may land a
        // fraction of a microsecond off; the error must not grow tick by tick.
        let start = Date(timeIntervalSince1970: 1_780_000_000)
        let scheduler = HistoricalScheduler(initialClock: start)
        var offsets: [TimeInterval] = []
        let job = scheduler.schedulePeriodic((), startAfter: .milliseconds(10), period: .milliseconds(10)) { _ in
            offsets.append(scheduler.now.timeIntervalSince(start))
            scheduler.sleep(0.003)
        }
        scheduler.advanceTo(start.addingTimeInterval(20.005))
        job.dispose()
        XCTAssertEqual(offsets.count, 2_000)
        for (index, offset) in offsets.enumerated() {
            let due = 0.01 * Double(index + 1)
            XCTAssertEqual(offset, due, accuracy: 1e-6, "tick \(index) drifted")
        }
    }

    func testSleepMovesTheClockBySeconds() {
        let scheduler = HistoricalScheduler()
        scheduler.sleep(2.5)
        XCTAssertEqual(scheduler.clock, Date(timeIntervalSince1970: 2.5))
        XCTAssertEqual(scheduler.monotonicNanoseconds, 2_500_000_000)
    }

    func testConverterIsTheIdentityOnDatesAndSeconds() {
        let converter = HistoricalSchedulerTimeConverter()
        let date = Date(timeIntervalSince1970: 123)
        XCTAssertEqual(converter.convertFromVirtualTime(date), date)
        XCTAssertEqual(converter.convertToVirtualTime(date), date)
        XCTAssertEqual(converter.convertFromVirtualTimeInterval(4.5), 4.5)
        XCTAssertEqual(converter.convertToVirtualTimeInterval(4.5), 4.5)
        XCTAssertEqual(converter.offsetVirtualTime(date, offset: 7), Date(timeIntervalSince1970: 130))
        XCTAssertEqual(converter.compareVirtualTime(date, date.addingTimeInterval(1)), .lessThan)
        XCTAssertEqual(converter.compareVirtualTime(date, date), .equal)
        XCTAssertEqual(converter.compareVirtualTime(date.addingTimeInterval(1), date), .greaterThan)
    }
}
