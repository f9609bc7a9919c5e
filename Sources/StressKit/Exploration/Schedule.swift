/// A recorded schedule: which scenario, the seed of its state's choices,
/// which thread ran each step, the build it was recorded on and which
/// threads could run at each step, as a short string.
///
/// The text is `<scenario>:<seed in hex>:<runs>:<build>:<runnable>`, where
/// each run is a thread's letter (`a` is thread 0, `b` thread 1, ...)
/// followed by how many steps in a row it ran, when more than one: `a3b2a`
/// is three steps of thread 0, two of thread 1, then one of thread 0.
/// `<build>` is ``Exploration/buildIdentity`` (traits and defines that
/// change the sync points, such as `exploration+broken-cell`), and
/// `<runnable>` every recorded step as the set of threads that could run,
/// then what the chosen thread stopped at (an upper-case letter: `A` lock
/// acquire, `B` lock found taken, `C` atomic load, `D` atomic store, `E`
/// atomic update, `F` spin-wait round, `R` returned), then a count when the
/// same repeats (`abC3.aR`: three steps where a and b could run and the
/// chosen thread stopped at an atomic load, then one where only a could run
/// and it returned). A replay refuses a schedule recorded on another build,
/// follows the runs, and gives no verdict when a step's runnable set or
/// step kind differs from the recorded one ("diverged at step N: expected
/// …, found …"); after the recorded steps it lets the
/// threads finish without preemption (the thread that ran last goes on
/// while it can, else the lowest-numbered one), so a schedule may stop as
/// soon as the interesting choices are made.
///
/// The older text `<scenario>:<seed>:<runs>` is still read; it records
/// neither the build nor the runnable sets, so its replay cannot be checked
/// and says so.
struct Schedule: Equatable, Sendable, CustomStringConvertible {
    /// The scenario's name.
    let scenario: String
    /// The seed of the scenario's `IterationChoices` for the state.
    let stateSeed: UInt64
    /// The thread of each step, in order.
    let choices: [Int]
    /// The build the schedule was recorded on (``Exploration/buildIdentity``);
    /// nil for a schedule in the older text, which does not record it.
    let build: String?
    /// The runnable threads of each recorded step, as bit masks (bit `t`:
    /// thread `t` could run), one per choice; nil for the older text.
    let runnable: [UInt32]?
    /// What the chosen thread stopped at in each recorded step (a
    /// ``SyncStep`` raw value, 255 returned, 254 unknown), one per choice;
    /// nil for the older text.
    let stepKinds: [UInt8]?

    /// The most threads a schedule can name.
    static let maximumThreads = 26

    /// Creates a schedule. `runnable` and `stepKinds`, when given, have one
    /// entry per choice; either both are given or neither.
    init(
        scenario: String, stateSeed: UInt64, choices: [Int], build: String? = nil, runnable: [UInt32]? = nil,
        stepKinds: [UInt8]? = nil
    ) {
        precondition(runnable == nil || runnable?.count == choices.count, "one runnable set per choice")
        precondition(stepKinds?.count == runnable?.count, "one step kind per runnable set")
        self.stepKinds = stepKinds
        self.scenario = scenario
        self.stateSeed = stateSeed
        self.choices = choices
        self.build = build
        self.runnable = runnable
    }

    /// What was wrong with a schedule's text.
    struct ParseError: Error, Equatable, CustomStringConvertible {
        /// One sentence saying what is wrong and what a schedule looks like.
        let description: String
    }

    /// Parses `text` as printed by ``description``.
    init(parsing text: String) throws(ParseError) {
        let format = "a schedule looks like 'scenario-name:1f2e3d:a3b2a:exploration:abC3.abD.aR' "
            + "(as printed beside a forbidden outcome)"
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3 || parts.count == 5, !parts[0].isEmpty else {
            throw ParseError(description: "'\(text)' is not a schedule: \(format)")
        }
        guard let seed = UInt64(parts[1], radix: 16) else {
            throw ParseError(description: "'\(parts[1])' is not a hexadecimal seed: \(format)")
        }
        let choices = try Self.decodeRuns(String(parts[2]))
        guard parts.count == 5 else {
            self.init(scenario: String(parts[0]), stateSeed: seed, choices: choices)
            return
        }
        guard !parts[3].isEmpty, parts[3].allSatisfy({ $0.isASCII && ($0.isLetter || $0 == "+" || $0 == "-") }) else {
            throw ParseError(description: "'\(parts[3])' is not a build (letters joined by '+', e.g. exploration+broken-cell): \(format)")
        }
        let (runnable, kinds) = try Self.decodeSteps(String(parts[4]))
        guard runnable.count == choices.count else {
            throw ParseError(
                description: "the schedule records \(choices.count) steps but \(runnable.count) runnable sets: \(format)")
        }
        for (step, (choice, mask)) in zip(choices, runnable).enumerated() where mask & (1 << UInt32(choice)) == 0 {
            throw ParseError(
                description: "step \(step + 1) runs thread \(Self.letter(choice)), which its runnable set "
                    + "\(Self.describeSet(mask)) does not hold: \(format)")
        }
        self.init(
            scenario: String(parts[0]), stateSeed: seed, choices: choices, build: String(parts[3]), runnable: runnable,
            stepKinds: kinds)
    }

    /// The letter of thread `thread` (`a` for 0).
    static func letter(_ thread: Int) -> Character {
        Character(UnicodeScalar(UInt8(97 + min(max(thread, 0), 25))))
    }

    /// A runnable set as `{a, c}`.
    static func describeSet(_ mask: UInt32) -> String {
        "{" + (0..<maximumThreads).filter { mask & (1 << UInt32($0)) != 0 }.map { String(letter($0)) }
            .joined(separator: ", ") + "}"
    }

    /// The letter of a step kind (`C` for an atomic load, `R` returned, `X` unknown).
    static func kindLetter(_ kind: UInt8) -> Character {
        switch kind {
        case ScheduleController.returnedStep: "R"
        case 0..<26 where SyncStep(rawValue: kind) != nil: Character(UnicodeScalar(65 + kind))
        default: "X"
        }
    }

    /// The step kind of `letter`, nil when it names none.
    static func kind(of letter: Character) -> UInt8? {
        switch letter {
        case "R": return ScheduleController.returnedStep
        case "X": return ScheduleController.unknownStep
        default:
            guard let ascii = letter.asciiValue, ascii >= 65, SyncStep(rawValue: ascii - 65) != nil else { return nil }
            return ascii - 65
        }
    }

    /// A step kind in words (`atomic load`, `returned`).
    static func describeKind(_ kind: UInt8) -> String {
        switch kind {
        case ScheduleController.returnedStep: return "returned"
        case ScheduleController.unknownStep: return "no sync point"
        default:
            guard let step = SyncStep(rawValue: kind) else { return "step kind \(kind)" }
            return switch step {
            case .lockAcquire: "lock acquire"
            case .lockBlocked: "lock found taken"
            case .atomicLoad: "atomic load"
            case .atomicStore: "atomic store"
            case .atomicUpdate: "atomic update"
            case .spinWait: "spin-wait round"
            }
        }
    }

    /// The steps of `text` (the fifth part): one runnable mask and one step
    /// kind per step; none for an empty text (a schedule shrunk to no step:
    /// the replay makes every choice non-preemptively).
    static func decodeSteps(_ text: String) throws(ParseError) -> (runnable: [UInt32], kinds: [UInt8]) {
        guard !text.isEmpty else { return ([], []) }
        var masks: [UInt32] = []
        var kinds: [UInt8] = []
        let shape = "a step is the runnable threads' letters a-z, a step kind A-F or R, then an optional count"
        for group in text.split(separator: ".", omittingEmptySubsequences: false) {
            var mask: UInt32 = 0
            var kind: UInt8?
            var count = ""
            for character in group {
                if kind == nil, let ascii = character.asciiValue, (97...122).contains(ascii) {
                    mask |= 1 << UInt32(ascii - 97)
                } else if kind == nil, mask != 0, let parsed = Self.kind(of: character) {
                    kind = parsed
                } else if kind != nil, character.isASCII, character.isNumber {
                    count.append(character)
                } else {
                    throw ParseError(description: "'\(group)' in '\(text)': \(shape)")
                }
            }
            let repeats = count.isEmpty ? 1 : (Int(count) ?? 0)
            guard mask != 0, let kind, repeats > 0, repeats <= 1_000_000 else {
                throw ParseError(description: "'\(group)' in '\(text)': \(shape), the count from 1 to 1000000")
            }
            masks += repeatElement(mask, count: repeats)
            kinds += repeatElement(kind, count: repeats)
        }
        return (masks, kinds)
    }

    /// The fifth part of the text for `masks` and `kinds`.
    static func encodeSteps(_ masks: [UInt32], _ kinds: [UInt8]) -> String {
        var groups: [String] = []
        var index = 0
        while index < masks.count {
            var end = index + 1
            while end < masks.count && masks[end] == masks[index] && kinds[end] == kinds[index] {
                end += 1
            }
            var group = String((0..<maximumThreads).filter { masks[index] & (1 << UInt32($0)) != 0 }.map(letter))
            group.append(kindLetter(kinds[index]))
            if end - index > 1 {
                group += String(end - index)
            }
            groups.append(group)
            index = end
        }
        return groups.joined(separator: ".")
    }

    /// The schedule cut to its first `count` steps.
    func prefix(_ count: Int) -> Schedule {
        Schedule(
            scenario: scenario, stateSeed: stateSeed, choices: Array(choices.prefix(count)), build: build,
            runnable: runnable.map { Array($0.prefix(count)) }, stepKinds: stepKinds.map { Array($0.prefix(count)) })
    }

    /// The choices of `runs` (the third part of the text).
    static func decodeRuns(_ runs: String) throws(ParseError) -> [Int] {
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
    static func encodeRuns(_ choices: [Int]) -> String {
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

    /// `<scenario>:<seed in hex>:<runs>:<build>:<runnable>`, or the older
    /// `<scenario>:<seed in hex>:<runs>` when neither is recorded.
    var description: String {
        var text = "\(scenario):\(String(stateSeed, radix: 16)):\(Self.encodeRuns(choices))"
        if let build, let runnable, let stepKinds {
            text += ":\(build):\(Self.encodeSteps(runnable, stepKinds))"
        }
        return text
    }

    /// How many times the schedule switches from a thread to another.
    var switches: Int {
        zip(choices, choices.dropFirst()).reduce(0) { $0 + ($1.0 == $1.1 ? 0 : 1) }
    }
}
