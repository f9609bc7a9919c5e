/// The command line of `Stress`, parsed by hand (the options are few).
public struct StressOptions: Sendable, Equatable {
    /// Iterations per scenario when neither `--iterations` nor `--duration` is given.
    public static let defaultIterations = 20_000

    /// `--help`: print usage and exit.
    public var help = false
    /// `--list`: print the scenarios and exit.
    public var list = false
    /// `--self-check`: prove the harness can fail.
    public var selfCheck = false
    /// `--filter`: run only scenarios whose name contains one of these.
    public var filters: [String] = []
    /// `--iterations` or `--duration`, per scenario.
    public var limit = RunLimit.iterations(StressOptions.defaultIterations)
    /// `--seed`; `nil` means pick one and print it.
    public var seed: UInt64?
    /// `--csv`: where to write the results.
    public var csvPath: String?

    /// Creates the default options.
    public init() {}

    /// The usage text.
    public static let usage = """
        USAGE: Stress [--list] [--filter TEXT]... [--iterations N | --duration SECONDS]
                      [--seed N] [--csv PATH] [--self-check]

        Hammers the racy guarantees of the Schedulers library (2 to 8, numbered as in
        Sources/Schedulers/Schedulers.docc/Guarantees.md) on every builtin scheduler:
        each scenario runs its actors concurrently, many times, and counts each outcome.

        OPTIONS:
          --list                 List the scenarios and exit.
          --filter TEXT          Run only scenarios whose name contains TEXT (repeatable,
                                 or comma-separated).
          --iterations N         Iterations per scenario (default \(defaultIterations)).
          --duration SECONDS     Run each scenario for this long instead (e.g. 0.5).
          --seed N               Seed of the choices of scheduler, order and delays
                                 (decimal or 0x-hex); the same seed replays the same choices.
          --csv PATH             Also write the results as CSV to PATH.
          --self-check           Run a scenario against a deliberately broken disposable;
                                 exit 0 only if the harness catches it.
          --help                 Show this text.

        EXIT STATUS: 0 no forbidden outcome and no leak; 1 a forbidden outcome or a leak
        (or, with --self-check, the broken disposable went unnoticed); 2 bad command line.
        """

    /// Parses `arguments` (without the program name).
    public static func parse(_ arguments: [String]) throws(StressOptionError) -> StressOptions {
        var options = StressOptions()
        var sawIterations = false
        var sawDuration = false
        var index = 0
        func value(for option: String, inline: String?) throws(StressOptionError) -> String {
            if let inline {
                return inline
            }
            index += 1
            guard index < arguments.count, !arguments[index].hasPrefix("--") else {
                throw StressOptionError("\(option) needs a value")
            }
            return arguments[index]
        }
        while index < arguments.count {
            let argument = arguments[index]
            var name = argument
            var inline: String?
            if let equals = argument.firstIndex(of: "="), argument.hasPrefix("--") {
                name = String(argument[..<equals])
                inline = String(argument[argument.index(after: equals)...])
            }
            switch name {
            case "--help", "-h":
                options.help = true
            case "--list":
                options.list = true
            case "--self-check":
                options.selfCheck = true
            case "--filter":
                let text = try value(for: name, inline: inline)
                let parts = text.split(separator: ",").map { String($0) }.filter { !$0.isEmpty }
                guard !parts.isEmpty else {
                    throw StressOptionError("--filter needs a non-empty text")
                }
                options.filters += parts
            case "--iterations":
                let text = try value(for: name, inline: inline)
                guard let count = Int(text), count > 0 else {
                    throw StressOptionError("--iterations needs a positive whole number, not '\(text)'")
                }
                options.limit = .iterations(count)
                sawIterations = true
            case "--duration":
                let text = try value(for: name, inline: inline)
                guard let seconds = Double(text), seconds > 0, seconds.isFinite else {
                    throw StressOptionError("--duration needs a positive number of seconds, not '\(text)'")
                }
                options.limit = .duration(seconds: seconds)
                sawDuration = true
            case "--seed":
                let text = try value(for: name, inline: inline)
                guard let seed = parseSeed(text) else {
                    throw StressOptionError("--seed needs a whole number from 0 to 2^64-1 (decimal or 0x-hex), not '\(text)'")
                }
                options.seed = seed
            case "--csv":
                let path = try value(for: name, inline: inline)
                guard !path.isEmpty else {
                    throw StressOptionError("--csv needs a file path")
                }
                options.csvPath = path
            default:
                throw StressOptionError("unknown option '\(argument)'")
            }
            index += 1
        }
        if sawIterations && sawDuration {
            throw StressOptionError("give either --iterations or --duration, not both")
        }
        return options
    }

    static func parseSeed(_ text: String) -> UInt64? {
        if text.hasPrefix("0x") || text.hasPrefix("0X") {
            return UInt64(text.dropFirst(2), radix: 16)
        }
        return UInt64(text)
    }
}

/// A command-line mistake, with a message that says what to do.
public struct StressOptionError: Error, Equatable, CustomStringConvertible {
    /// What was wrong.
    public let message: String

    /// Creates an error with `message`.
    public init(_ message: String) {
        self.message = message
    }

    /// The message, as printed.
    public var description: String {
        message
    }
}
