/// Input `BenchRunner compare` cannot use: a missing or unreadable file, a file
/// that is not CSV, missing columns, a malformed row or a non-numeric value.
///
/// The description names the file and, where one applies, the line, in the
/// `file:line: message` form editors and CI logs link to (bad input gets a
/// clear error, never a silent wrong answer). Leads to exit status 2.
public struct CompareInputError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file as the user named it.
    public let file: String
    /// 1-based line where the problem starts, or nil when it concerns the whole file.
    public let line: Int?
    /// What is wrong and, where it helps, what to do.
    public let message: String

    /// The problem `message` in `file`, at `line` when one applies.
    init(file: String, line: Int?, message: String) {
        self.file = file
        self.line = line
        self.message = message
    }

    /// `file:line: message`, or `file: message` without a line.
    public var description: String {
        if let line {
            return "\(file):\(line): \(message)"
        }
        return "\(file): \(message)"
    }
}
