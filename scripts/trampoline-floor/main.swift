// The floor under a trampolined `schedule` that keeps the contract of
// `CurrentThreadScheduler.schedule`, without the Schedulers library.
// `scripts/trampoline-floor.sh` builds it with BenchRunner's chain state
// (taken from `Sources/BenchKit/Benchmarks/TrampolineBenchmark.swift`) and
// runs it.
//
// Every variant runs the chain of BenchRunner's `trampoline.recursion`: each
// level notes where its frame is and queues the next level, and a loop runs
// the queue until it is empty. They differ in what a queued level must
// offer:
// - `closure-queue`: nothing. A ring of (state, step) pairs, as BenchRunner's
//   `reference.closure-queue`.
// - `contract`: what the contract requires and nothing else. The action
//   returns a `Disposable`; queuing returns a `Disposable` that can skip the
//   action from any thread before it runs (so it refers to the queued entry
//   and the entry has an atomic flag) and dispose what the action returned
//   if disposed after; an entry whose disposables were all dropped is known
//   by its reference count, runs without keeping what the action returned
//   and is reused for the next level, so the chain allocates nothing. What
//   a library adds on top is left out: the queue is handed to each level (no
//   thread-local lookup), holds one state type (no type erasure), and the
//   entry's fields go without run-time exclusivity checks.
// - `contract.any-state`: `contract` with entries of any state type in one
//   queue, as a trampoline shared by every caller on a thread must hold
//   them: a base class, a generic subclass per state type, and the drain
//   reaching the subclass's run through a function the entry stores.
// - `contract.any-state.queue-out-of-line`: `contract.any-state` whose
//   `schedule` puts the entry into the queue through a call the optimiser
//   cannot see into, as a library's inlined `schedule` reaches a queue
//   whose fields stay behind non-inlined methods.
//
// `list` prints the variants' names, the closure queue first; `count VARIANT
// LEVELS` runs one chain (for callgrind, which counts inside `runChain`);
// `time LEVELS ROUNDS` interleaves the variants over ROUNDS rounds and
// prints ns per level and each variant over `closure-queue`.
import Foundation
import Synchronization

/// As the library's: disposing may come from any thread.
protocol Disposable: Sendable {
    func dispose()
}

/// What a level's action returns: nothing to dispose.
struct NothingToDispose: Disposable {
    func dispose() {}
}

/// Where BenchRunner's chain state lives (`TrampolineBenchmark.Chain`, whose
/// lines `scripts/trampoline-floor.sh` takes from BenchKit's source and
/// builds into this program).
enum TrampolineBenchmark {}

typealias Chain = TrampolineBenchmark.Chain

/// A growable ring of `Element`s, first in first out: the queue of every
/// variant. Its storage sits behind a pointer (a class's stored array would
/// pay a run-time exclusivity check per access); every slot between `head`
/// and `head + count` is initialised, every other one is not. Only the
/// queue's thread touches it, one access at a time, so its fields go
/// without run-time exclusivity checks (BenchRunner's reference pays none).
final class Ring<Element> {
    @exclusivity(unchecked) private var slots: UnsafeMutablePointer<Element>
    @exclusivity(unchecked) private var capacity = 16
    @exclusivity(unchecked) private var head = 0
    @exclusivity(unchecked) private var count = 0

    init() {
        slots = .allocate(capacity: capacity)
    }

    deinit {
        while count > 0 { _ = pop() }
        slots.deallocate()
    }

    @inline(__always)
    func push(_ element: consuming Element) {
        if count == capacity { grow() }
        (slots + ((head + count) & (capacity - 1))).initialize(to: element)
        count += 1
    }

    @inline(__always)
    func pop() -> Element? {
        guard count > 0 else { return nil }
        let element = (slots + head).move()
        head = (head + 1) & (capacity - 1)
        count -= 1
        return element
    }

    private func grow() {
        let larger = UnsafeMutablePointer<Element>.allocate(capacity: capacity * 2)
        for offset in 0..<count {
            (larger + offset).moveInitialize(from: slots + ((head + offset) & (capacity - 1)), count: 1)
        }
        slots.deallocate()
        slots = larger
        capacity *= 2
        head = 0
    }
}

// MARK: closure-queue

enum ClosureQueue {
    typealias Step = (Chain, Ring<Pending>) -> Void
    struct Pending {
        let state: Chain
        let step: Step
    }

    @inline(never)
    static func runChain(_ chain: Chain) {
        let queue = Ring<Pending>()
        queue.push(Pending(state: chain, step: level))
        while let pending = queue.pop() {
            pending.step(pending.state, queue)
        }
    }

    static func level(_ chain: Chain, _ queue: Ring<Pending>) {
        chain.noteFrame()
        if chain.count < chain.target {
            queue.push(Pending(state: chain, step: level))
        }
    }
}

// MARK: what every contract-keeping variant shares

/// What a disposer on any thread touches of a queued entry: whether it was
/// disposed and, while a disposable for the entry is held, what its action
/// returned (taken by whichever of the run and `dispose` comes second).
struct Cancellation: ~Copyable, Sendable {
    let disposed = Atomic<Bool>(false)
    let result = Mutex<Disposable?>(nil)

    /// Skips the action if it has not run; disposes what it returned if it has.
    func dispose() {
        disposed.store(true, ordering: .sequentiallyConsistent)
        result.withLock { $0.take() }?.dispose()
    }

    /// Runs an entry no disposable refers to any more: nobody can dispose it
    /// or what its action returns, which is dropped. Leaves it pending.
    @inline(__always)
    func runUnreferenced(_ action: () -> Void) {
        if !disposed.load(ordering: .relaxed) {
            action()
        }
        disposed.store(false, ordering: .relaxed)
    }

    /// Runs an entry a disposable still refers to, keeping what the action
    /// returned for that disposable.
    @inline(__always)
    func runReferenced(_ action: () -> Disposable) {
        guard !disposed.load(ordering: .sequentiallyConsistent) else { return }
        let returned = action()
        result.withLock { $0 = returned }
        if disposed.load(ordering: .sequentiallyConsistent) {
            result.withLock { $0.take() }?.dispose()
        }
    }
}

/// A contract-keeping trampoline: what a level needs of it.
protocol FloorTrampoline: AnyObject {
    init()
    /// Queues `action`; the result skips it if disposed before it runs.
    func schedule(_ chain: Chain, action: @escaping (Chain, Self) -> Disposable) -> Disposable
    /// Runs the queue until it is empty.
    func drain()
}

/// One chain on a new `Trampoline` (what `count` counts).
@inline(never)
func runChain<Trampoline: FloorTrampoline>(on _: Trampoline.Type, _ chain: Chain) {
    let trampoline = Trampoline()
    _ = trampoline.schedule(chain, action: level)
    trampoline.drain()
}

/// One level: notes where its frame is and queues the next, dropping the
/// disposable it is given (as BenchRunner's chain does).
func level<Trampoline: FloorTrampoline>(_ chain: Chain, _ trampoline: Trampoline) -> Disposable {
    chain.noteFrame()
    if chain.count < chain.target {
        _ = trampoline.schedule(chain, action: level)
    }
    return NothingToDispose()
}

// MARK: contract

enum Contract {
    typealias Action = (Chain, Trampoline) -> Disposable

    /// One queued action: the state and action until it runs.
    /// `@unchecked Sendable`: `state` and `action` are touched only on the
    /// trampoline's thread; a disposer touches `cancellation` alone.
    final class Entry: @unchecked Sendable {
        @exclusivity(unchecked) var state: Chain?
        @exclusivity(unchecked) var action: Action?
        let cancellation = Cancellation()
    }

    /// What `schedule` returns.
    struct Ticket: Disposable {
        let entry: Entry
        func dispose() {
            entry.cancellation.dispose()
        }
    }

    final class Trampoline: FloorTrampoline {
        let queue = Ring<Entry>()
        @exclusivity(unchecked) var spare: Entry?

        @inline(__always)
        func schedule(_ chain: Chain, action: @escaping Action) -> Disposable {
            let entry = spare.take() ?? Entry()
            entry.state = chain
            entry.action = action
            queue.push(entry)
            return Ticket(entry: entry)
        }

        func drain() {
            while var entry = queue.pop() {
                guard let state = entry.state.take(), let action = entry.action.take() else { continue }
                if isKnownUniquelyReferenced(&entry) {
                    entry.cancellation.runUnreferenced { _ = action(state, self) }
                    if case .none = spare { spare = entry }
                } else {
                    entry.cancellation.runReferenced { action(state, self) }
                }
            }
        }
    }
}

// MARK: contract.any-state

/// Where `schedule` puts an entry into the queue: `Inlined` where the
/// optimiser sees it, `OutOfLine` through a call it cannot see into, as code
/// inlined into a caller's module reaches a library's queue whose fields
/// stay behind non-inlined methods.
protocol QueuePlacement {
    static func push<Element>(_ element: Element, into queue: Ring<Element>)
}

enum Inlined: QueuePlacement {
    @inline(__always)
    static func push<Element>(_ element: Element, into queue: Ring<Element>) {
        queue.push(element)
    }
}

enum OutOfLine: QueuePlacement {
    @inline(never)
    static func push<Element>(_ element: Element, into queue: Ring<Element>) {
        queue.push(element)
    }
}

enum AnyStateContract<Placement: QueuePlacement> {
    /// A queued action of some state type. A generic class's override runs
    /// unspecialised when called through its base class, so the drain runs
    /// an entry through `runner`, a function made where the state type was
    /// concrete (as the library's trampoline does).
    ///
    /// `@unchecked Sendable`: as `Contract.Entry`.
    class Work: @unchecked Sendable {
        /// `ObjectIdentifier(State.self)` of the `Entry<State>` this is:
        /// only `Entry.init` sets it, so the spare of a kind is cast down to
        /// that kind's class without a run-time check.
        let kind: ObjectIdentifier
        let cancellation = Cancellation()
        /// Runs the entry it is given, which is always this one.
        let runner: (Work, Bool, Trampoline) -> Bool

        init(kind: ObjectIdentifier, runner: @escaping (Work, Bool, Trampoline) -> Bool) {
            self.kind = kind
            self.runner = runner
        }
    }

    final class Entry<State>: Work, @unchecked Sendable {
        @exclusivity(unchecked) var state: State?
        @exclusivity(unchecked) var action: ((State, Trampoline) -> Disposable)?

        init() {
            super.init(kind: ObjectIdentifier(State.self)) { work, unreferenced, trampoline in
                unsafeDowncast(work, to: Entry<State>.self).run(unreferenced: unreferenced, on: trampoline)
            }
        }

        /// Runs the action unless disposed; returns whether the entry may be reused.
        func run(unreferenced: Bool, on trampoline: Trampoline) -> Bool {
            guard let state = state.take(), let action = action.take() else { return false }
            if unreferenced {
                cancellation.runUnreferenced { _ = action(state, trampoline) }
            } else {
                cancellation.runReferenced { action(state, trampoline) }
            }
            return unreferenced
        }
    }

    struct Ticket: Disposable {
        let entry: Work
        func dispose() {
            entry.cancellation.dispose()
        }
    }

    final class Trampoline: FloorTrampoline {
        let queue = Ring<Work>()
        @exclusivity(unchecked) var spare: Work?

        init() {}

        @inline(__always)
        func schedule(_ chain: Chain, action: @escaping (Chain, Trampoline) -> Disposable) -> Disposable {
            schedule(state: chain, action: action)
        }

        @inline(__always)
        func schedule<State>(state: State, action: @escaping (State, Trampoline) -> Disposable) -> Disposable {
            // The spare is reused only by its own state type; its kind says
            // which class it is, so the cast needs no run-time check.
            let entry =
                if spare?.kind == ObjectIdentifier(State.self), let reused = spare.take() {
                    unsafeDowncast(reused, to: Entry<State>.self)
                } else {
                    Entry<State>()
                }
            entry.state = state
            entry.action = action
            let ticket = Ticket(entry: entry)
            Placement.push(entry, into: queue)
            return ticket
        }

        func drain() {
            while var work = queue.pop() {
                let unreferenced = isKnownUniquelyReferenced(&work)
                if work.runner(work, unreferenced, self), case .none = spare {
                    spare = work
                }
            }
        }
    }
}

// MARK: driver

/// Every variant, the closure queue (what the others are divided by) first.
let variants: [(name: String, run: (Chain) -> Void)] = [
    ("closure-queue", ClosureQueue.runChain),
    ("contract", { runChain(on: Contract.Trampoline.self, $0) }),
    ("contract.any-state", { runChain(on: AnyStateContract<Inlined>.Trampoline.self, $0) }),
    ("contract.any-state.queue-out-of-line", { runChain(on: AnyStateContract<OutOfLine>.Trampoline.self, $0) }),
]

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("trampoline-floor: \(message)\n".utf8))
    exit(2)
}

func wholeNumber(_ text: String, _ what: String) -> Int {
    guard let value = Int(text), value > 0 else { fail("\(what) takes a whole number above 0, not '\(text)'") }
    return value
}

/// Runs one chain of `levels` levels and checks that every level ran.
func runChecked(_ variant: (name: String, run: (Chain) -> Void), levels: Int) {
    let chain = Chain(target: levels)
    variant.run(chain)
    guard chain.count == levels else { fail("\(variant.name) ran \(chain.count) levels, not \(levels)") }
    guard chain.highestAddress - chain.lowestAddress < 4096 else {
        fail("\(variant.name)'s levels did not run at one stack depth")
    }
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

let arguments = CommandLine.arguments.dropFirst()
switch arguments.first {
case "list" where arguments.count == 1:
    for variant in variants { print(variant.name) }
case "count" where arguments.count == 3:
    let name = arguments[arguments.startIndex + 1]
    guard let variant = variants.first(where: { $0.name == name }) else {
        fail("no variant '\(name)'; the variants are \(variants.map(\.name).joined(separator: ", "))")
    }
    runChecked(variant, levels: wholeNumber(arguments[arguments.startIndex + 2], "LEVELS"))
case "time" where arguments.count == 3:
    let levels = wholeNumber(arguments[arguments.startIndex + 1], "LEVELS")
    let rounds = wholeNumber(arguments[arguments.startIndex + 2], "ROUNDS")
    for variant in variants { runChecked(variant, levels: max(1, levels / 10)) }  // warm-up
    // nanoseconds[v][r]: ns per level of variants[v] in round r.
    var nanoseconds = Array(repeating: [Double](), count: variants.count)
    for _ in 0..<rounds {
        for (index, variant) in variants.enumerated() {
            let start = DispatchTime.now().uptimeNanoseconds
            runChecked(variant, levels: levels)
            nanoseconds[index].append(Double(DispatchTime.now().uptimeNanoseconds - start) / Double(levels))
        }
    }
    print("ns per level, median of \(rounds) rounds of \(levels) levels (each round runs every variant once):")
    for (variant, times) in zip(variants, nanoseconds) {
        let ratios = zip(times, nanoseconds[0]).map { $0 / $1 }
        print(
            "  " + variant.name.padding(toLength: 38, withPad: " ", startingAt: 0)
                + String(format: "%7.2f ns   %5.3f× closure-queue (median of the rounds' ratios)", median(times), median(ratios)))
    }
default:
    fail("usage: trampoline-floor list | trampoline-floor count VARIANT LEVELS | trampoline-floor time LEVELS ROUNDS")
}
