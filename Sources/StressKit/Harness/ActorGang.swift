import Foundation
import Synchronization

/// Long-lived threads that run one iteration's actors together, over and over.
///
/// The calling thread is party 0; `parties - 1` worker threads are started
/// once and reused for every iteration (a thread per iteration would cost
/// more than the race it hosts). Each iteration crosses two spin barriers:
/// one that releases all actors at once, so they really overlap, and one
/// that tells the caller every actor has returned.
final class ActorGang: @unchecked Sendable {
    let parties: Int
    private let start: SpinBarrier
    private let finish: SpinBarrier
    private let stopping = Atomic<Bool>(false)
    private let exited: DispatchGroup
    // Set before the start barrier by the caller, read after it by the
    // workers: the barrier orders the accesses.
    private var work: (@Sendable (Int) -> Void)?

    init(parties: Int, name: String) {
        self.parties = parties
        start = SpinBarrier(parties: parties)
        finish = SpinBarrier(parties: parties)
        exited = DispatchGroup()
        for party in 1..<max(parties, 1) {
            exited.enter()
            let thread = Thread { [self] in
                workerLoop(party)
                exited.leave()
            }
            thread.name = "stress.\(name).\(party)"
            thread.start()
        }
    }

    /// Runs `work(party)` on every party at once; returns when all returned.
    func runTogether(_ work: @escaping @Sendable (Int) -> Void) {
        self.work = work
        start.arriveAndWait()
        work(0)
        finish.arriveAndWait()
    }

    /// Stops and joins the worker threads.
    func stop() {
        stopping.store(true, ordering: .releasing)
        work = nil
        start.arriveAndWait()
        exited.wait()
    }

    private func workerLoop(_ party: Int) {
        while true {
            start.arriveAndWait()
            if stopping.load(ordering: .acquiring) {
                return
            }
            work.unsafelyUnwrapped(party)
            finish.arriveAndWait()
        }
    }
}
