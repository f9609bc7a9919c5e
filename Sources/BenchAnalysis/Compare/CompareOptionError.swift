/// An option value `BenchRunner compare` cannot use; the message names the option.
package struct CompareOptionError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong, naming the option.
    package let message: String

    /// The problem `message`.
    init(_ message: String) {
        self.message = message
    }

    /// The ``message``.
    package var description: String { message }
}
