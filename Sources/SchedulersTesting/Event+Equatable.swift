import Schedulers

/// Events compare equal when both are the same element, both complete, or
/// both fail with errors of the same type and description, as RxTest compares
/// them, so recorded events can be checked with `XCTAssertEqual`.
extension Event: Equatable where Element: Equatable {
    public static func == (lhs: Event<Element>, rhs: Event<Element>) -> Bool {
        switch (lhs, rhs) {
        case (.next(let left), .next(let right)):
            return left == right
        case (.completed, .completed):
            return true
        case (.error(let left), .error(let right)):
            return type(of: left) == type(of: right) && String(reflecting: left) == String(reflecting: right)
        default:
            return false
        }
    }
}
