/// Something a reusable dispatch block runs: an `observe(on:)` sink's drain.
///
/// Not generic, so that the block made by `ReusableDrainBlock.make(running:)`
/// captures no generic type metadata (which is not `Sendable`).
protocol ReusableDrainTarget: AnyObject, Sendable {
    /// Runs one drain, then releases the reference taken when it was enqueued.
    func drainAndRelease()
}

/// Makes the one block an `observe(on:)` sink enqueues for every drain.
enum ReusableDrainBlock {
    /// A block that calls `target.drainAndRelease()`.
    ///
    /// The block does not retain `target`: `target` owns the block, and each
    /// enqueued copy of it is covered by a reference the enqueuer took
    /// (`Unmanaged.retain()`), which `drainAndRelease()` gives back.
    static func make(running target: any ReusableDrainTarget) -> @Sendable @convention(block) () -> Void {
        { [unowned(unsafe) target] in
            target.drainAndRelease()
        }
    }
}
