import Dispatch
import Synchronization

/// The least serial executor on a `DispatchQueue` that batches: jobs wait
/// in an array under a mutex, and the job that finds no batch open enqueues
/// one block, which runs jobs until the array is empty. No isolation check
/// of its own, no ordering with other work on the queue: only what
/// running an actor's jobs in order on the queue needs.
///
/// BenchRunner's `peer.dispatch-executor`; `scripts/executor-floor.sh`
/// builds this file into its program without the library, so it depends
/// on Dispatch and Synchronization alone.
final class LeastDispatchExecutor: SerialExecutor, Sendable {
    private struct Jobs {
        var waiting: [UnownedJob] = []
        var batchOpen = false
    }

    private let queue: DispatchQueue
    private let jobs = Mutex(Jobs())

    init(queue: DispatchQueue) {
        self.queue = queue
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let opensBatch = jobs.withLock { jobs in
            jobs.waiting.append(job)
            guard !jobs.batchOpen else { return false }
            jobs.batchOpen = true
            return true
        }
        if opensBatch {
            queue.async { self.runBatch() }
        }
    }

    /// Runs the waiting jobs, taken out a batch at a time, until none is left;
    /// the batch closes under the lock when the array is found empty.
    private func runBatch() {
        var taken: [UnownedJob] = []
        while true {
            jobs.withLock { jobs in
                swap(&taken, &jobs.waiting)
                if taken.isEmpty {
                    jobs.batchOpen = false
                }
            }
            guard !taken.isEmpty else { return }
            for job in taken {
                job.runSynchronously(on: asUnownedSerialExecutor())
            }
            taken.removeAll(keepingCapacity: true)
        }
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }
}
