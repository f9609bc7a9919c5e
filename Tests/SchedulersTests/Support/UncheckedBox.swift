/// Carries a non-`Sendable` value into a `@Sendable` closure in tests.
struct UncheckedBox<Value>: @unchecked Sendable {
    let value: Value

    init(_ value: Value) {
        self.value = value
    }
}
