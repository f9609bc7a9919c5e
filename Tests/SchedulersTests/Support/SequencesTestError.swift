/// The error the sequence tests send; compares by its description.
struct SequencesTestError: Error, CustomStringConvertible {
    var description: String { "test error" }
}
