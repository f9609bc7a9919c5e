/// How a tool's parsed options become a command line again: one entry per
/// option its parser knows, in the order the command line gives them.
///
/// A tool gives a child process of itself (and a user a command to run
/// again) the options it parsed, through this, with what the parent decides
/// for the child set as typed values; it never edits its own command line as
/// text. Each tool's tests check that every option its parser knows has an
/// entry, and that every entry's value survives ``arguments(_:spellingOut:)``
/// and the parser (``disagreements(_:_:)`` is empty).
package struct OptionEncoding<Options> {
    /// One option: its name and how its value is written and compared.
    package struct Entry {
        /// The option's long name without the dashes, as the parser knows it (`repetitions`).
        package let name: String
        /// Every long name the parser knows the option by: ``name``, and a
        /// flag's inversion (`no-isolate`).
        package let spellings: [String]
        /// The words that give the option's value in `options`, whatever that value is.
        let words: (Options) -> [String]
        /// Whether the option has the parser's default value in `options`
        /// (what the parser gives when the option is absent).
        let isDefault: (Options) -> Bool
        /// Whether two values of the options agree on this option.
        let agrees: (Options, Options) -> Bool

        private init(
            name: String, spellings: [String]? = nil, words: @escaping (Options) -> [String],
            isDefault: @escaping (Options) -> Bool, agrees: @escaping (Options, Options) -> Bool
        ) {
            self.name = name
            self.spellings = spellings ?? [name]
            self.words = words
            self.isDefault = isDefault
            self.agrees = agrees
        }

        /// An on/off flag, off unless given: `--name` when on.
        package static func flag(_ name: String, _ value: KeyPath<Options, Bool>) -> Entry {
            Entry(
                name: name, words: { $0[keyPath: value] ? ["--\(name)"] : [] }, isDefault: { !$0[keyPath: value] },
                agrees: { $0[keyPath: value] == $1[keyPath: value] })
        }

        /// A flag with an inversion (`--name` / `--no-name`) whose default is `defaultValue`.
        package static func invertibleFlag(_ name: String, _ value: KeyPath<Options, Bool>, default defaultValue: Bool)
            -> Entry
        {
            Entry(
                name: name, spellings: [name, "no-\(name)"],
                words: { $0[keyPath: value] ? ["--\(name)"] : ["--no-\(name)"] },
                isDefault: { $0[keyPath: value] == defaultValue }, agrees: { $0[keyPath: value] == $1[keyPath: value] })
        }

        /// An option whose value is absent (`nil`) unless given, written by `text`.
        package static func optional<Value: Equatable>(
            _ name: String, _ value: KeyPath<Options, Value?>, text: @escaping (Value) -> String
        ) -> Entry {
            Entry(
                name: name, words: { options in options[keyPath: value].map { word(name, text($0)) } ?? [] },
                isDefault: { $0[keyPath: value] == nil }, agrees: { $0[keyPath: value] == $1[keyPath: value] })
        }

        /// An option whose value is absent (`nil`) unless given, written as its description
        /// (a number or a text the parser reads back to the same value).
        package static func optional<Value: Equatable & LosslessStringConvertible>(
            _ name: String, _ value: KeyPath<Options, Value?>
        ) -> Entry {
            optional(name, value, text: \.description)
        }

        /// An option whose value is one of a set of names (`RawRepresentable` by `String`), absent unless given.
        package static func optionalChoice<Value: Equatable & RawRepresentable>(
            _ name: String, _ value: KeyPath<Options, Value?>
        ) -> Entry where Value.RawValue == String {
            optional(name, value, text: \.rawValue)
        }

        /// An option that always has a value, `defaultValue` unless given, written by `text`.
        package static func valued<Value: Equatable>(
            _ name: String, _ value: KeyPath<Options, Value>, default defaultValue: Value,
            text: @escaping (Value) -> String
        ) -> Entry {
            Entry(
                name: name, words: { word(name, text($0[keyPath: value])) },
                isDefault: { $0[keyPath: value] == defaultValue }, agrees: { $0[keyPath: value] == $1[keyPath: value] })
        }

        /// An option that always has a value, `defaultValue` unless given, written as its description.
        package static func valued<Value: Equatable & LosslessStringConvertible>(
            _ name: String, _ value: KeyPath<Options, Value>, default defaultValue: Value
        ) -> Entry {
            valued(name, value, default: defaultValue, text: \.description)
        }

        /// An option whose value is one of a set of names, `defaultValue` unless given.
        package static func choice<Value: Equatable & RawRepresentable>(
            _ name: String, _ value: KeyPath<Options, Value>, default defaultValue: Value
        ) -> Entry where Value.RawValue == String {
            valued(name, value, default: defaultValue, text: \.rawValue)
        }

        /// A repeatable option, none unless given: `--name text` for each text, in order.
        package static func repeated(_ name: String, _ value: KeyPath<Options, [String]>) -> Entry {
            Entry(
                name: name, words: { $0[keyPath: value].flatMap { word(name, $0) } },
                isDefault: { $0[keyPath: value].isEmpty }, agrees: { $0[keyPath: value] == $1[keyPath: value] })
        }

        /// `--name text`, or `--name=text` when the text starts with a dash
        /// (which the parser would otherwise take for an option of its own).
        private static func word(_ name: String, _ text: String) -> [String] {
            text.hasPrefix("-") ? ["--\(name)=\(text)"] : ["--\(name)", text]
        }
    }

    /// Every option, in the order ``arguments(_:spellingOut:)`` writes them.
    package let entries: [Entry]

    /// An encoding of `entries`, written in that order.
    package init(_ entries: [Entry]) {
        self.entries = entries
    }

    /// The long names of every option, in order.
    package var names: [String] {
        entries.map(\.name)
    }

    /// Every long name of every option, inversions included, in order.
    package var spellings: [String] {
        entries.flatMap(\.spellings)
    }

    /// The arguments that give `options` to the parser: every option whose
    /// value is not the parser's default, in the order of ``entries``; an
    /// option named in `spellingOut` is written whatever its value (a flag
    /// that is off has no words). Parsing them gives back `options`.
    package func arguments(_ options: Options, spellingOut: Set<String> = []) -> [String] {
        entries.flatMap { entry in
            entry.isDefault(options) && !spellingOut.contains(entry.name) ? [] : entry.words(options)
        }
    }

    /// The names of the options on which `first` and `second` differ, in order.
    package func disagreements(_ first: Options, _ second: Options) -> [String] {
        entries.filter { !$0.agrees(first, second) }.map(\.name)
    }

    /// The names of the options that have the parser's default value in `options`, in order.
    package func defaults(in options: Options) -> [String] {
        entries.filter { $0.isDefault(options) }.map(\.name)
    }
}
