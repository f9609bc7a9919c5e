/// The one rule by which both tools' `--filter` texts select names
/// (BenchRunner's `benchmark/variant`, Stress's scenario names).
///
/// A name is made of parts joined by `.` or `/`, and a part of words joined
/// by `-`. A filter text selects a name when it is the whole name, or when it
/// occurs in the name starting where a part starts (or itself starts with
/// `.` or `/`) and ending where a word or a part ends. So `event-loop`
/// selects `dispose-vs-action.event-loop`, `event-loop.generic` and
/// `dispose-vs-observeOn.event-loop-generic-path`, but not `broken-loop` or
/// `racy-event-loop`; `dispose-vs` selects every `dispose-vs-…` name;
/// `observeOn.latency/fast-path` selects that one variant.
package enum NameFilter {
    /// The characters that end one part of a name and start the next.
    static let partSeparators: Set<Character> = [".", "/"]

    /// Whether `text` selects `name` under the rule above. An empty text selects nothing.
    package static func text(_ text: String, selects name: String) -> Bool {
        guard !text.isEmpty else { return false }
        if text == name { return true }
        let characters = Array(name), wanted = Array(text)
        guard wanted.count <= characters.count else { return false }
        let startsAtBoundary = partSeparators.contains(wanted[0])
        let endsAtBoundary = partSeparators.contains(wanted[wanted.count - 1]) || wanted[wanted.count - 1] == "-"
        for start in 0...(characters.count - wanted.count) {
            guard startsAtBoundary || start == 0 || partSeparators.contains(characters[start - 1]) else { continue }
            let end = start + wanted.count
            guard endsAtBoundary || end == characters.count || partSeparators.contains(characters[end])
                || characters[end] == "-"
            else { continue }
            if Array(characters[start..<end]) == wanted { return true }
        }
        return false
    }

    /// Whether any of `texts` selects `name`.
    package static func any(of texts: [String], selects name: String) -> Bool {
        texts.contains { text($0, selects: name) }
    }

    /// One line stating the rule, for `--filter`'s help in both tools.
    package static let ruleSummary =
        "A text selects a name when it is the whole name or whole words of it starting a dot-separated part "
        + "('event-loop' selects 'dispose-vs-action.event-loop' and 'event-loop.generic', not 'broken-loop')."
}
