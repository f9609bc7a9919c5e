/// An option value `BenchRunner compare` cannot use; the message names the option.
public struct CompareOptionError: Error, Sendable, Equatable, CustomStringConvertible {
    public let message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
