import Dispatch
import Foundation
import Synchronization

/// Runs work on the main queue: the scheduler for work that must happen on
/// the main thread.
///
/// A `SerialDispatchQueueScheduler` on `DispatchQueue.main`, so a
/// `SerialScheduler` with the `observe(on:)` fast path.
///
/// - `schedule` called on the main queue (the main thread, or a block the
///   main queue is running) runs the action at once, without scheduling, but
///   only while nothing a `MainScheduler` enqueued is still pending on the
///   main queue; otherwise it enqueues, so actions keep their FIFO order.
/// - `scheduleInOrder` always enqueues with `DispatchQueue.main.async`.
/// - `asyncInstance` never runs inline: every `schedule` enqueues.
/// - `scheduleRelative` and `schedulePeriodic` use dispatch timers on the
///   main queue (periodic is native and fixed rate).
///
/// Guarantees (Guarantees.md): 5 (disposed before it starts, an action never
/// runs; disposed while running, it finishes and is not run again) and 6 (no
/// periodic tick starts after `dispose()` returns; ticks never overlap).
///
/// ## Driving the main queue on Linux
///
/// The main queue runs only when the main thread services it. In an app the
/// run loop does that; a command-line program must do it itself:
///
/// - `MainScheduler.runMainQueue(until:)` (or `RunLoop.main.run(until:)`)
///   runs the main run loop on the main thread; Foundation's run loop drains
///   the main queue there, so every action runs **on the main thread**. This
///   is the way to use when the main thread matters. XCTest's
///   `wait(for:timeout:)` runs the same loop, so tests see main-queue work.
///
///   ```swift
///   // main.swift of a command-line tool
///   var finished = false
///   let subscription = Observable<Int>.interval(.milliseconds(100), scheduler: MainScheduler.instance)
///       .take(5)
///       .subscribe(onNext: { print($0) }, onCompleted: { finished = true })
///   MainScheduler.runMainQueue(until: .distantFuture, while: { !finished })
///   subscription.dispose()
///   ```
///
/// - `dispatchMain()` hands the main thread over for good and never returns.
///   On Linux libdispatch then exits the main thread and lets its worker
///   threads drain the main queue: actions still run one at a time, in
///   order, on the main queue, but not on the main thread.
public final class MainScheduler: SerialDispatchQueueScheduler, @unchecked Sendable {
    /// The shared instance: runs inline when already on the main queue and
    /// nothing it scheduled is pending.
    public static let instance = MainScheduler()

    /// A scheduler on the main queue that always enqueues (never runs inline).
    public static let asyncInstance = SerialDispatchQueueScheduler(serialQueue: DispatchQueue.main, isMainQueue: true)

    /// Actions any `MainScheduler` enqueued on the main queue that have not
    /// finished running. Shared by all instances, as the main queue is; being
    /// static, the block that decrements it captures only its item (no
    /// closure context to allocate).
    private static let pendingCount = SyncAtomic<Int>(0)

    /// Creates a scheduler on the main queue. Prefer `instance`.
    public init() {
        _ = MainQueueMarker.key
        super.init(serialQueue: DispatchQueue.main, isMainQueue: true)
    }

    /// Runs inline when on the main queue and nothing of this scheduler is pending there, else enqueues.
    override func scheduleInternal<StateType>(
        _ state: StateType,
        action: @escaping (StateType) -> Disposable
    ) -> Disposable {
        let previouslyPending = Self.pendingCount.add(1, ordering: .acquiringAndReleasing).oldValue
        if previouslyPending == 0 && MainQueueMarker.isOnMainQueue {
            let disposable = action(state)
            Self.pendingCount.subtract(1, ordering: .acquiringAndReleasing)
            return disposable
        }
        return enqueueCounted(state, action: action)
    }

    /// Always enqueues, counting the action as pending until it has run.
    /// `false`: every action must go through `enqueue`, which counts it, so
    /// that `schedule` never runs inline ahead of queued work.
    override var takesReusableBlocks: Bool {
        false
    }

    override func enqueue<StateType>(
        _ state: StateType,
        action: @escaping (StateType) -> Disposable
    ) -> Disposable {
        Self.pendingCount.add(1, ordering: .acquiringAndReleasing)
        return enqueueCounted(state, action: action)
    }

    /// Enqueues an action already counted in `pendingCount`.
    private func enqueueCounted<StateType>(
        _ state: StateType,
        action: @escaping (StateType) -> Disposable
    ) -> Disposable {
        let item = DispatchScheduledItem(state: state, action: action)
        // The same work offered to the seam, then enqueued as usual.
        if !SyncPoint.controllerTook({ Self.runCounted(item) }, for: DispatchQueue.main) {
            DispatchQueue.main.async {
                Self.runCounted(item)
            }
        }
        return item
    }

    /// Runs an item enqueued by `enqueueCounted`, then uncounts it.
    private static func runCounted<StateType>(_ item: DispatchScheduledItem<StateType>) {
        item.run()
        pendingCount.subtract(1, ordering: .acquiringAndReleasing)
    }

    /// Stops the program with `errorMessage` unless called on the main queue.
    ///
    /// "On the main queue" means the main thread, or a block the main queue is
    /// running (on Linux after `dispatchMain()`, a worker thread).
    public static func ensureExecutingOnScheduler(errorMessage: String? = nil) {
        precondition(
            MainQueueMarker.isOnMainQueue,
            errorMessage ?? "Executing off the main queue. Use MainScheduler.instance.schedule to run work on the main thread."
        )
    }

    /// Stops the program with `errorMessage` unless called on the main thread.
    public static func ensureRunningOnMainThread(errorMessage: String? = nil) {
        precondition(
            Thread.isMainThread,
            errorMessage ?? "Running off the main thread. Use MainScheduler.instance.schedule to run work on the main thread."
        )
    }

    /// Services the main queue on the main thread until `deadline`: runs the
    /// main run loop, which drains the main queue there, so that every
    /// `MainScheduler` action runs on the main thread.
    ///
    /// For command-line programs and tests; an app's run loop already does this.
    ///
    /// - Precondition: called on the main thread.
    public static func runMainQueue(until deadline: Date) {
        runMainQueue(until: deadline, while: { true })
    }

    /// Services the main queue on the main thread until `keepRunning` returns
    /// `false` or `deadline` passes, whichever comes first.
    ///
    /// `keepRunning` is checked after each batch of main-queue work and at
    /// least every 10 ms.
    ///
    /// - Returns: `true` if `keepRunning` returned `false` before the deadline.
    /// - Precondition: called on the main thread.
    @discardableResult
    public static func runMainQueue(until deadline: Date, while keepRunning: () -> Bool) -> Bool {
        precondition(Thread.isMainThread, "MainScheduler.runMainQueue(until:) must be called on the main thread")
        while keepRunning() {
            let now = Date()
            guard now < deadline else { return false }
            let slice = min(deadline, now.addingTimeInterval(0.01))
            if !RunLoop.main.run(mode: .default, before: slice) {
                // No run loop source at all: nothing can wake the loop, so wait out the slice.
                Thread.sleep(until: slice)
            }
        }
        return true
    }
}

/// Recognises the main queue: a queue-specific value set on it once, visible
/// on the main thread and in every block the main queue runs.
enum MainQueueMarker {
    static let key: DispatchSpecificKey<Bool> = {
        let key = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: key, value: true)
        return key
    }()

    static var isOnMainQueue: Bool {
        DispatchQueue.getSpecific(key: key) == true
    }
}
