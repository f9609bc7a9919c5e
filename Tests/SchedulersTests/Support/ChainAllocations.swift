import XCTest

/// Asserts that a chain of nested schedules allocates nothing per level:
/// `allocations(levels)` runs a chain of that many levels and returns what it
/// allocated. After a warm-up, 2,000 levels must allocate what 1,000 do in an
/// optimised build; unoptimised, where the spare item is not reused, at most
/// one allocation per level (the item itself).
func assertChainAllocatesNothingPerLevel(
    _ allocations: (_ levels: Int) -> UInt64, file: StaticString = #filePath, line: UInt = #line
) {
    _ = allocations(100)
    let single = allocations(1_000)
    let double = allocations(2_000)
    #if DEBUG
    XCTAssertLessThanOrEqual(double - single, 1_000, "at most one allocation per level", file: file, line: line)
    #else
    XCTAssertEqual(double, single, "no allocation per level", file: file, line: line)
    #endif
}
