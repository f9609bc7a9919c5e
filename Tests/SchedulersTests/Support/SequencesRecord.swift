import Schedulers

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
