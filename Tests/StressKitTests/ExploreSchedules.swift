import XCTest
@testable import StressKit

/// Runs schedules on `controller` under `strategy` until the strategy is
/// exhausted or `limit` schedules ran. Each schedule gets a fresh record from
/// `makeRecord`, and its parties run `body(record)`; every schedule must
/// complete. Returns each schedule's choices with its record.
///
/// The loop every exploration test shares: begin a schedule, run it, check it
/// completed, tell the strategy how many steps it took.
func exploreSchedules<Strategy: ExplorationStrategy, Record>(
    on controller: ScheduleController,
    limit: Int,
    strategy: inout Strategy,
    makeRecord: () -> Record,
    _ body: (Record) -> (Int) -> Void,
    file: StaticString = #filePath,
    line: UInt = #line
) -> [(choices: [Int], record: Record)] {
    var schedules: [(choices: [Int], record: Record)] = []
    while schedules.count < limit, strategy.beginSchedule() {
        let record = makeRecord()
        let (choices, end) = controller.run(body(record), chooser: &strategy)
        XCTAssertEqual(end, .completed, file: file, line: line)
        strategy.endSchedule(steps: choices.count)
        schedules.append((choices, record))
    }
    return schedules
}
