import Testing

/// The one naming convention of the guarantee tests: a test that checks
/// guarantee N of Guarantees.md carries the tag `.guaranteeN`, and its name
/// says what it checks, not the number.
///
/// XCTest cannot tag a test. The few guarantee tests that must stay in XCTest
/// (they drive the main queue from the main thread, or read process-wide
/// live-object or allocation counts that tests running in parallel would
/// disturb) are named `testGuaranteeN_WhatItChecks` instead.
extension Tag {
    /// Guarantee 1: events follow the grammar.
    @Tag static var guarantee1: Self
    /// Guarantee 2: an observer is never called concurrently with itself.
    @Tag static var guarantee2: Self
    /// Guarantee 3: observeOn keeps order and stops at dispose.
    @Tag static var guarantee3: Self
    /// Guarantee 4: subscribeOn subscribes and disposes on the scheduler.
    @Tag static var guarantee4: Self
    /// Guarantee 5: a scheduled action runs at most once.
    @Tag static var guarantee5: Self
    /// Guarantee 6: periodic work stops at dispose, never overlaps and never drifts.
    @Tag static var guarantee6: Self
    /// Guarantee 7: every disposable releases what it holds exactly once, from any thread.
    @Tag static var guarantee7: Self
    /// Guarantee 8: nothing leaks.
    @Tag static var guarantee8: Self
    /// Guarantee 9: bad input gets a clear answer.
    @Tag static var guarantee9: Self
    /// Guarantee 10: work makes progress, in parallel where promised and in the order it fell due.
    @Tag static var guarantee10: Self
}
