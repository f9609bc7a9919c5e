/// `reference.closure-queue` of `trampoline.recursion`: the floor under a
/// trampoline, measured in the same run.
///
/// The same chain as the library's variants (each level notes its frame and
/// asks for the next level), run by the least a single-threaded trampoline
/// can do: a FIFO of (state, step) pairs in a ring that a loop pops until it
/// is empty. No thread-local lookup to find the queue, no disposable, no
/// check for disposal, no thread safety: the floor of a trampolined
/// `schedule`, which `current-thread` pays its contract on top of. (A
/// `scheduleRecursive` chain, `current-thread.recursive`, can go below it:
/// its next step runs in place, without a round trip through the queue.)
/// This is also the anchor by which
/// `compare` tells the machine's drift from the trampoline's (it runs code
/// this project's library does not contain).
enum ClosureQueueReference {
    static let variant = VariantID.reference("closure-queue")

    /// A step receives the queue that runs it, so that it captures nothing
    /// and queuing it allocates nothing.
    typealias Step = (TrampolineBenchmark.Chain, Queue) -> Void

    /// A growable ring of pending steps. Its storage sits behind pointers, not
    /// in stored arrays: a class's stored `var` reached from a closure pays a
    /// dynamic exclusivity check on every access, which the floor must not.
    final class Queue {
        private var states: UnsafeMutablePointer<TrampolineBenchmark.Chain>
        /// Steps in a struct: a bare function type in generic storage
        /// (`UnsafeMutablePointer<Step>`) is kept at its most general
        /// abstraction, and converting to it allocates a thunk per store.
        private struct StoredStep {
            let run: Step
        }

        private var steps: UnsafeMutablePointer<StoredStep>
        private var capacity = 16
        private var head = 0
        private var count = 0

        init() {
            states = .allocate(capacity: capacity)
            steps = .allocate(capacity: capacity)
        }

        deinit {
            while count > 0 {
                _ = pop()
            }
            states.deallocate()
            steps.deallocate()
        }

        func push(_ state: TrampolineBenchmark.Chain, _ step: @escaping Step) {
            if count == capacity {
                grow()
            }
            let slot = (head + count) & (capacity - 1)
            (states + slot).initialize(to: state)
            (steps + slot).initialize(to: StoredStep(run: step))
            count += 1
        }

        func pop() -> (TrampolineBenchmark.Chain, Step)? {
            guard count > 0 else { return nil }
            let pair = ((states + head).move(), (steps + head).move().run)
            head = (head + 1) & (capacity - 1)
            count -= 1
            return pair
        }

        /// Runs steps, oldest first, until none is pending.
        func drain() {
            while let (state, step) = pop() {
                step(state, self)
            }
        }

        private func grow() {
            let newCapacity = capacity * 2
            let newStates = UnsafeMutablePointer<TrampolineBenchmark.Chain>.allocate(capacity: newCapacity)
            let newSteps = UnsafeMutablePointer<StoredStep>.allocate(capacity: newCapacity)
            for offset in 0..<count {
                let slot = (head + offset) & (capacity - 1)
                (newStates + offset).moveInitialize(from: states + slot, count: 1)
                (newSteps + offset).moveInitialize(from: steps + slot, count: 1)
            }
            states.deallocate()
            steps.deallocate()
            states = newStates
            steps = newSteps
            capacity = newCapacity
            head = 0
        }
    }

    /// Runs a chain of `depth` levels on a fresh queue.
    static func runChain(_ depth: Int, _ context: MeasureContext) -> (TrampolineBenchmark.Chain, MeasureContext.Region) {
        let chain = TrampolineBenchmark.Chain(target: depth)
        let queue = Queue()
        let (_, region) = context.region {
            queue.push(chain, closureQueueLevel)
            queue.drain()
        }
        return (chain, region)
    }

    /// Runs the chain to `chain.target` levels on a fresh queue (the
    /// instruction count's form of ``runChain(_:_:)``).
    static func startChain(_ chain: TrampolineBenchmark.Chain) {
        let queue = Queue()
        queue.push(chain, closureQueueLevel)
        queue.drain()
    }
}

/// One level of `ClosureQueueReference`'s chain: notes where its frame is,
/// then queues the next level. A top-level function, so that passing it as a
/// step allocates no context (a static method would be curried with its type).
private func closureQueueLevel(_ chain: TrampolineBenchmark.Chain, _ queue: ClosureQueueReference.Queue) {
    chain.noteFrame()
    if chain.count < chain.target {
        queue.push(chain, closureQueueLevel)
    }
}
