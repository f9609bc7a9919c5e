/// An option value `BenchRunner compare` cannot use; the message names the option.
public struct CompareOptionError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong, naming the option.
    public let message: String

    /// The problem `message`.
    public init(_ message: String) {
        self.message = message
    }

    /// The ``message``.
    public var description: String { message }
}
