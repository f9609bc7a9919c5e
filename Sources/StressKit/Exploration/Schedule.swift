/// A recorded schedule: which scenario, the seed of its state's choices, and
/// which thread ran each step, as a short string.
///
/// The text is `<scenario>:<seed in hex>:<runs>`, where each run is a
/// thread's letter (`a` is thread 0, `b` thread 1, ...) followed by how many
/// steps in a row it ran, when more than one: `a3b2a` is three steps of
/// thread 0, two of thread 1, then one of thread 0. A replay follows the
/// runs, then lets the threads finish without preemption (the thread that
/// ran last goes on while it can, else the lowest-numbered one), so a
/// schedule may stop as soon as the interesting choices are made.
public struct Schedule: Equatable, Sendable, CustomStringConvertible {
    /// The scenario's name.
    public let scenario: String
    /// The seed of the scenario's `IterationChoices` for the state.
    public let stateSeed: UInt64
    /// The thread of each step, in order.
    public let choices: [Int]

    /// The most threads a schedule can name.
    public static let maximumThreads = 26

    /// Creates a schedule.
    public init(scenario: String, stateSeed: UInt64, choices: [Int]) {
        self.scenario = scenario
        self.stateSeed = stateSeed
        self.choices = choices
    }

    /// What was wrong with a schedule's text.
    public struct ParseError: Error, Equatable, CustomStringConvertible {
        /// One sentence saying what is wrong and what a schedule looks like.
        public let description: String
    }

    /// Parses `text` as printed by ``description``.
    public init(parsing text: String) throws(ParseError) {
        let format = "a schedule looks like 'scenario-name:1f2e3d:a3b2a' (as printed beside a forbidden outcome)"
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty else {
            throw ParseError(description: "'\(text)' is not a schedule: \(format)")
        }
        guard let seed = UInt64(parts[1], radix: 16) else {
            throw ParseError(description: "'\(parts[1])' is not a hexadecimal seed: \(format)")
        }
        self.init(scenario: String(parts[0]), stateSeed: seed, choices: try Self.decodeRuns(String(parts[2])))
    }

    /// The choices of `runs` (the third part of the text).
    public static func decodeRuns(_ runs: String) throws(ParseError) -> [Int] {
        var choices: [Int] = []
        var thread: Int?
        var count = ""
        func flush() throws(ParseError) {
            guard let current = thread else { return }
            let repeats = count.isEmpty ? 1 : (Int(count) ?? 0)
            guard repeats > 0, repeats <= 1_000_000 else {
                throw ParseError(description: "run '\(Character(UnicodeScalar(UInt8(97 + current))))\(count)' needs a count from 1 to 1000000")
            }
            choices += repeatElement(current, count: repeats)
        }
        for character in runs {
            if let ascii = character.asciiValue, (97...122).contains(ascii) {
                try flush()
                thread = Int(ascii) - 97
                count = ""
            } else if character.isASCII, character.isNumber, thread != nil {
                count.append(character)
            } else {
                throw ParseError(
                    description: "'\(character)' in '\(runs)': runs are a thread letter a-z, then an optional step count")
            }
        }
        try flush()
        return choices
    }

    /// The runs part of the text for `choices`.
    public static func encodeRuns(_ choices: [Int]) -> String {
        var text = ""
        var index = 0
        while index < choices.count {
            let thread = choices[index]
            var end = index + 1
            while end < choices.count && choices[end] == thread {
                end += 1
            }
            text.append(Character(UnicodeScalar(UInt8(97 + thread))))
            if end - index > 1 {
                text += String(end - index)
            }
            index = end
        }
        return text
    }

    /// `<scenario>:<seed in hex>:<runs>`.
    public var description: String {
        "\(scenario):\(String(stateSeed, radix: 16)):\(Self.encodeRuns(choices))"
    }

    /// How many times the schedule switches from a thread to another.
    public var switches: Int {
        zip(choices, choices.dropFirst()).reduce(0) { $0 + ($1.0 == $1.1 ? 0 : 1) }
    }
}
