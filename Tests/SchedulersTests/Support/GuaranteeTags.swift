import Testing

/// The one naming convention of the guarantee tests: a test that checks
/// guarantee N of Guarantees.md carries the tag `.guaranteeN`, whatever its
/// name (`swift test --filter` matches names; a tag lists a guarantee's tests
/// in Xcode and in the test report).
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
}
