import Foundation

/// The events `sequencesRecord` saw, guarded by a lock so another thread may append.
final class SequencesEventBox<Element: Equatable>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [SequencesRecordedEvent<Element>] = []

    var events: [SequencesRecordedEvent<Element>] {
        lock.withLock { stored }
    }

    func append(_ event: SequencesRecordedEvent<Element>) {
        lock.withLock { stored.append(event) }
    }
}
