import Foundation
import Schedulers

/// An event with an `Equatable` shape, for assertions: errors compare by description.
enum SequencesRecordedEvent<Element: Equatable>: Equatable {
    case next(Element)
    case error(String)
    case completed

    init(_ event: Event<Element>) {
        switch event {
        case .next(let element): self = .next(element)
        case .error(let error): self = .error(String(describing: error))
        case .completed: self = .completed
        }
    }
}

struct SequencesTestError: Error, CustomStringConvertible {
    var description: String { "test error" }
}

/// Subscribes and records every event, on one thread.
func sequencesRecord<Element: Equatable>(
    _ observable: Observable<Element>
) -> (events: () -> [SequencesRecordedEvent<Element>], subscription: Disposable) {
    let box = SequencesEventBox<Element>()
    let subscription = observable.subscribe { event in
        box.append(SequencesRecordedEvent(event))
    }
    return ({ box.events }, subscription)
}

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
