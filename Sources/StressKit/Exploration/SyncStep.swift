#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
#if SCHEDULERS_EXPLORATION
@_spi(Exploration) import Schedulers
#endif

/// What a controlled thread is about to do when it reaches a sync point.
///
/// The raw values are the library's (Sources/Schedulers/Internal/SyncPoint.swift).
public enum SyncStep: UInt8, Sendable, CaseIterable {
    /// About to take a lock.
    case lockAcquire = 0
    /// Found the lock taken: cannot go on until another thread makes progress.
    case lockBlocked = 1
    /// About to load an atomic.
    case atomicLoad = 2
    /// About to store to an atomic.
    case atomicStore = 3
    /// About to read-modify-write an atomic.
    case atomicUpdate = 4
    /// Spinning until another thread makes progress.
    case spinWait = 5

    /// Whether a thread that stopped here waits for another thread's progress
    /// (the controller does not pick it again until another thread moved on).
    var waitsForOthers: Bool {
        self == .lockBlocked || self == .spinWait
    }
}

/// Sync points for code outside the library (the self-check's broken
/// disposables, tests): the same seam the library's locks and atomics pass
/// through in a build with the `Exploration` trait.
public enum Exploration {
    /// Announces that the calling thread is about to perform `step`. On a
    /// thread a schedule controller owns, parks it until the controller picks
    /// it again; on any other thread returns at once.
    ///
    /// - Returns: Whether the calling thread is controlled (`false` also once
    ///   its controller gave up a schedule and let the threads run freely:
    ///   a loop that waits for another thread must then block or give up).
    @discardableResult
    public static func syncPoint(_ step: SyncStep) -> Bool {
        guard let party = ControlledParty.current else { return false }
        return party.controller.yield(party: party.index, step: step)
    }

    /// Whether the calling thread is run by a schedule controller.
    public static var isControlledThread: Bool {
        ControlledParty.current != nil
    }

    /// Whether the library in this build has sync points (built with the
    /// package trait `Exploration`); without them, exploration interleaves
    /// the library's code only at the harness's own sync points.
    public static var libraryIsInstrumented: Bool {
        #if SCHEDULERS_EXPLORATION
        SchedulersExploration.isInstrumented
        #else
        false
        #endif
    }

    /// Routes the library's sync points to the controllers (idempotent).
    /// A no-op in a build without the `Exploration` trait.
    static func installLibraryHook() {
        #if SCHEDULERS_EXPLORATION
        SchedulersExploration.install { raw in
            Exploration.syncPoint(SyncStep(rawValue: raw) ?? .atomicUpdate)
        }
        #endif
    }
}

/// Which controller owns the calling thread, and as which party (thread-local).
struct ControlledParty {
    let controller: ScheduleController
    let index: Int

    static var current: ControlledParty? {
        guard let raw = pthread_getspecific(key) else { return nil }
        return Unmanaged<ControlledPartyBox>.fromOpaque(raw).takeUnretainedValue().party
    }

    /// Binds the calling thread to `box` (retained by the caller for the thread's life), or unbinds it.
    static func bind(_ box: ControlledPartyBox?) {
        pthread_setspecific(key, box.map { UnsafeRawPointer(Unmanaged.passUnretained($0).toOpaque()) })
    }

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let status = pthread_key_create(&key, nil)
        precondition(status == 0, "pthread_key_create failed with \(status)")
        return key
    }()
}

/// Holds a `ControlledParty` by reference, for the thread-local slot.
final class ControlledPartyBox: @unchecked Sendable {
    let party: ControlledParty

    init(_ party: ControlledParty) {
        self.party = party
    }
}
