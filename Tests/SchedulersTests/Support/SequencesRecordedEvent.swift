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
