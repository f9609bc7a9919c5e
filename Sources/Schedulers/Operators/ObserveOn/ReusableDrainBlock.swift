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
    /// (`retainForDrain(_:)`), which `drainAndRelease()` gives back
    /// (`releaseAfterDrain(_:)`).
    static func make(running target: any ReusableDrainTarget) -> @Sendable @convention(block) () -> Void {
        // unsafe: every run of the block is covered by a reference `retainForDrain` took (see above).
        { [unowned(unsafe) target] in
            // unsafe: `target` is alive: this run of the block holds the reference `retainForDrain` took.
            unsafe target.drainAndRelease()
        }
    }

    /// Takes the reference that keeps `target` alive until the enqueued
    /// block has run; `releaseAfterDrain` gives it back.
    static func retainForDrain(_ target: AnyObject) {
        // unsafe: a plain retain, balanced by exactly one `releaseAfterDrain` once the enqueued block has run.
        _ = unsafe Unmanaged.passUnretained(target).retain()
    }

    /// Gives back the reference `retainForDrain` took for the block that is
    /// finishing its run.
    static func releaseAfterDrain(_ target: AnyObject) {
        // unsafe: balances the `retainForDrain` of the block now running; nothing touches `target` after it.
        unsafe Unmanaged.passUnretained(target).release()
    }
}
