import Dispatch
import Schedulers
import Synchronization

/// The actor hops of `observeOn.throughput` and `observeOn.latency`: what a
/// synchronous producer writes to hand each element to an actor,
/// `Task { @SomeGlobalActor in consume(value) }`.
///
/// Since Swift 6 a task whose operation is isolated to an actor is enqueued
/// on that actor's executor when it is created, so every element is one job
/// on the actor, in the order sent (one task allocation and one hop, no
/// detour through the global pool). The two variants differ only in the
/// executor behind the actor:
/// - `actor-executor`: the actor's executor is a
///   `SerialDispatchQueueScheduler`'s `executor`, so the job runs on the
///   scheduler's serial queue (this library's `SerialSchedulerExecutor`);
/// - `peer.actor`: a default actor, run by the Swift runtime on the
///   cooperative pool.
///
/// A hop needs an actor the closure can be isolated to from a non-isolated
/// caller, hence global actors, and a global actor is one per process: unlike
/// the other variants, the scheduler behind `actor-executor` is made once and
/// reused by every repetition (its queue is idle between passes).
enum ActorHops {
    static let schedulerExecutor: HopVariant = {
        var hop = HopVariant(id: .library("actor-executor")) {
            ActorHop { value, consume in
                Task { @SchedulerExecutorBenchActor in consume(value) }
            }
        }
        hop.instructions = enqueueInstructions
        return hop.takingMicrosecondsPerElement()
    }()

    /// Jobs whose enqueuing is counted.
    static let countedJobs = 10_000

    /// The instructions of the enqueuing side of `actor-executor`'s hop,
    /// per element: making the task and enqueuing its job on the
    /// scheduler's executor, which is the producer's part of the hop.
    ///
    /// Only that side is CPU work on one thread: the jobs run on the
    /// scheduler's queue. While the region runs, the queue's target is
    /// suspended, so no job runs and every job after the first joins the
    /// batch the first one opened, as in a flood whose jobs come faster
    /// than the queue runs them; the jobs run after the region. A warm-up
    /// of as many jobs first grows the executor's buffers.
    static let enqueueInstructions = InstructionWorkload(
        metric: .perElement.instructions, operations: countedJobs
    ) { counted in
        try flood(counted: { $0() })
        try flood(counted: counted)
    }

    /// Enqueues ``countedJobs`` jobs on `CountedEnqueueBenchActor` inside
    /// `counted`, with the queue's target suspended, then lets them run and
    /// waits for the last.
    private static func flood(counted: (() -> Void) -> Void) throws {
        let latch = CompletionLatch(expected: countedJobs) { _ in }
        let target = CountedEnqueueBenchActor.target
        target.suspend()
        counted {
            for job in 0..<countedJobs {
                #if BENCHKIT_INSTRUCTION_CANARY
                injectedCost(job)
                #endif
                Task { @CountedEnqueueBenchActor in latch.consume(0) }
            }
        }
        target.resume()
        try latch.wait(timeoutSeconds: 120, variant: "actor-executor")
    }

    #if BENCHKIT_INSTRUCTION_CANARY
    /// Test only, never in a shipped build: a few dozen more instructions
    /// per counted job, under 2 % of one (`scripts/instruction-canary.sh`
    /// shows that the gate catches it).
    @inline(never)
    static func injectedCost(_ job: Int) {
        // Multiply and xor-shift rounds: no closed form the optimiser could fold.
        var mixed = job
        for round in 0..<6 {
            mixed = (mixed &* 31 &+ round) ^ (mixed >> 7)
        }
        canarySink.store(mixed, ordering: .relaxed)
    }

    /// Where the canary's mix goes, so that the optimiser keeps it.
    static let canarySink = Atomic<Int>(0)
    #endif

    static let defaultActor = HopVariant(id: .peer("actor")) {
        ActorHop { value, consume in
            Task { @DefaultBenchActor in consume(value) }
        }
    }.takingMicrosecondsPerElement()

    /// `peer.dispatch-executor`: what a user writes instead of
    /// `actor-executor` to run an actor's jobs on a serial queue of their
    /// own, the least executor that batches (``LeastDispatchExecutor``).
    /// Held against `actor-executor` repetition by repetition (the run
    /// summary's paired ratio), it tells the library's executor code from
    /// what running jobs through any custom executor on Dispatch costs.
    static let dispatchExecutor = HopVariant(id: .peer("dispatch-executor")) {
        ActorHop { value, consume in
            Task { @DispatchExecutorBenchActor in consume(value) }
        }
    }.takingMicrosecondsPerElement()
}

/// The actor of `actor-executor`: its jobs run on one
/// `SerialDispatchQueueScheduler`'s queue, through the scheduler's `executor`.
@globalActor
actor SchedulerExecutorBenchActor {
    static let shared = SchedulerExecutorBenchActor()
    /// Kept for the whole process: the actor's executor lives as long as it does.
    static let scheduler = SerialDispatchQueueScheduler(internalSerialQueueName: "bench.actor-executor")

    nonisolated var unownedExecutor: UnownedSerialExecutor {
        Self.scheduler.executor.asUnownedSerialExecutor()
    }
}

/// The actor of `actor-executor`'s instruction count: as
/// `SchedulerExecutorBenchActor`, on a scheduler of its own whose queue
/// targets `target`, which the count suspends.
@globalActor
actor CountedEnqueueBenchActor {
    static let shared = CountedEnqueueBenchActor()
    static let target = DispatchQueue(label: "bench.actor-executor.counted-target")
    /// Kept for the whole process: the actor's executor lives as long as it does.
    static let scheduler = SerialDispatchQueueScheduler(
        queue: target, internalSerialQueueName: "bench.actor-executor.counted")

    nonisolated var unownedExecutor: UnownedSerialExecutor {
        Self.scheduler.executor.asUnownedSerialExecutor()
    }
}

/// The actor of `peer.dispatch-executor`: its jobs run on a serial queue of
/// its own through ``LeastDispatchExecutor``, reached as `actor-executor`'s
/// is (a static the executor getter reads).
@globalActor
actor DispatchExecutorBenchActor {
    static let shared = DispatchExecutorBenchActor()
    /// Kept for the whole process: the actor's executor lives as long as it does.
    static let executor = LeastDispatchExecutor(queue: DispatchQueue(label: "bench.peer.dispatch-executor"))

    nonisolated var unownedExecutor: UnownedSerialExecutor {
        Self.executor.asUnownedSerialExecutor()
    }
}

/// The actor of `peer.actor`: a default actor.
@globalActor
actor DefaultBenchActor {
    static let shared = DefaultBenchActor()
}

/// One pass sends every element as its own task isolated to the variant's actor.
final class ActorHop: HopSession {
    private let send: @Sendable (UInt64, @escaping @Sendable (UInt64) -> Void) -> Void

    init(send: @escaping @Sendable (UInt64, @escaping @Sendable (UInt64) -> Void) -> Void) {
        self.send = send
    }

    func pass(produce: @escaping ((UInt64) -> Void) -> Void, consume: @escaping @Sendable (UInt64) -> Void) throws {
        let send = self.send
        produce { value in send(value, consume) }
    }

    /// Nothing to release: the tasks end once they have run, and the
    /// producer returns only after the last one did.
    func close() {}
}

/// The task hops of `observeOn.throughput` and `observeOn.latency`: each
/// element is a task of its own, `Task(executorPreference:) { consume(value) }`,
/// run on a concurrent executor, so tasks may run at once and out of order:
/// - `task-executor`: the executor is a `ConcurrentDispatchQueueScheduler`'s
///   `taskExecutor`, made per session (this library's `SchedulerTaskExecutor`);
/// - `peer.task`: a task on the Swift runtime's global concurrent executor.
///
/// The hop's consumer counts one element at a time, so both variants call it
/// under the same lock (`OneAtATime`): the lock costs each of them alike.
enum TaskHops {
    static let schedulerTaskExecutor = HopVariant(id: .library("task-executor")) {
        let executor = ConcurrentDispatchQueueScheduler(qos: .userInitiated).taskExecutor
        let serial = OneAtATime()
        return ActorHop { value, consume in
            Task(executorPreference: executor) { serial.run { consume(value) } }
        }
    }.takingMicrosecondsPerElement()

    static let globalExecutor = HopVariant(id: .peer("task")) {
        let serial = OneAtATime()
        return ActorHop { value, consume in
            Task { serial.run { consume(value) } }
        }
    }.takingMicrosecondsPerElement()
}

/// Runs one closure at a time, whichever threads call it.
final class OneAtATime: Sendable {
    private let lock = Mutex(())

    func run(_ body: () -> Void) {
        lock.withLock { _ in body() }
    }
}
