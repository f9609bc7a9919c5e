import Foundation
import Schedulers

/// The outcomes of a `scheduleRecursive` chain racing its disposal from
/// another thread (guarantees 5 and 8 in Guarantees.md).
///
/// "No step starts after `dispose()` returned" cannot be judged from a
/// step's first statement alone: the recursion commits to a step (an atomic
/// load) a few instructions before the step's body, and a `dispose()` landing
/// in between returns first. That commit happens after the previous step (or
/// the action that started the chain) has returned, so the probe also notes,
/// at every step's end, whether `dispose()` had returned: a step starting
/// after a step that ended once `dispose()` had returned is one no scheduler
/// may run. At most one step (the committed one) can start after `dispose()`
/// returned, and its `recurse` calls are ignored.
enum RecursiveChainOutcome: String, ScenarioOutcome {
    case disposedBeforeFirstStep = "disposed-before-first-step"
    case stoppedMidChain = "stopped-mid-chain"
    case completed = "chain-completed"
    case committedStepAfterDisposeReturned = "committed-step-then-dispose-returned"
    case stepAfterDisposeReturned = "step-started-after-dispose-returned"
    case stepRanTwice = "step-ran-twice"
    case stepOnAnotherThread = "step-ran-on-another-thread"
    case stepsLostWithoutDispose = "steps-lost-without-dispose"
    case actionOrStateKept = "action-or-state-kept"

    var grade: Grade {
        switch self {
        case .disposedBeforeFirstStep, .stoppedMidChain, .completed: .acceptable
        case .committedStepAfterDisposeReturned: .interesting
        case .stepAfterDisposeReturned, .stepRanTwice, .stepOnAnotherThread, .stepsLostWithoutDispose,
             .actionOrStateKept: .forbidden
        }
    }
    var meaning: String {
        switch self {
        case .disposedBeforeFirstStep: "dispose() won: no step ran"
        case .stoppedMidChain: "dispose() stopped the chain part-way: the step running (if any) finished, no step started after dispose() returned"
        case .completed: "every step ran once: dispose() came during the last step or after the chain ended"
        case .committedStepAfterDisposeReturned: "the recursion committed to one step just before dispose() returned; its body ran after, nothing after it (allowed)"
        case .stepAfterDisposeReturned: "a step started although dispose() had returned before the step before it (or the chain's start) ended"
        case .stepRanTwice: "a step of the chain ran more than once"
        case .stepOnAnotherThread: "a step ran on a thread other than the trampoline's that started the chain"
        case .stepsLostWithoutDispose: "the chain stopped early although no dispose() had begun"
        case .actionOrStateKept: "the action or a state was still alive once the trampoline had drained"
        }
    }
}

/// One step's state: which step it is, and a token the iteration's `held`
/// counter counts, so a state the recursion keeps shows up.
final class ChainStep: Sendable {
    /// Where the step sits in the chain; see `RecursiveChainProbe.Plan`.
    let id: Int
    let token: LiveToken

    init(_ id: Int, held: LiveCounter) {
        self.id = id
        token = LiveToken(held)
    }
}

/// The per-iteration state of a `scheduleRecursive` chain racing its disposal.
///
/// Every step field is written only by the thread running the chain and read
/// by the arbiter after the runner's end barrier, so they need no atomics
/// (a step on another thread would be a data race ThreadSanitizer reports).
final class RecursiveChainProbe: @unchecked Sendable {
    /// The chain's shape, chosen per iteration: a main chain of steps
    /// `0...depth`; main step `level` (below `depth`) on a fan-out level also
    /// calls `recurse` a second time, for a branch step `depth + 1 + 2·level`,
    /// which may recurse once more into its twig `depth + 2 + 2·level`.
    struct Plan {
        let depth: Int
        let fanOutEvery: Int
        /// Whether a fan-out step recurses into its branch before the main chain.
        let branchFirst: Bool
        let twigs: Bool

        var stepCount: Int { 3 * depth + 3 }

        func isFanOut(_ level: Int) -> Bool {
            level < depth && level % fanOutEvery == 1
        }

        /// How many steps a chain run to its end runs.
        var expectedSteps: Int {
            let fanOuts = (0..<depth).filter(isFanOut).count
            return depth + 1 + fanOuts * (twigs ? 2 : 1)
        }

        /// The steps step `id` recurses into, in the order it calls `recurse`.
        func children(of id: Int) -> [Int] {
            if id <= depth {
                guard id < depth else { return [] }
                let main = id + 1
                guard isFanOut(id) else { return [main] }
                let branch = depth + 1 + 2 * id
                return branchFirst ? [branch, main] : [main, branch]
            }
            let isBranch = (id - depth - 1).isMultiple(of: 2)
            return isBranch && twigs ? [id + 1] : []
        }
    }

    let plan: Plan
    /// Counts the action's captured token and every live `ChainStep`.
    let held = LiveCounter()
    /// Set just before the chain's `dispose()` is called, and right after it returned.
    let disposeBegan = Flag()
    let disposeReturned = Flag()
    /// Holds the chain's disposable: the disposer disposes it without waiting
    /// for it, as an operator's subscription would.
    let holder = SingleAssignmentDisposable()
    /// Set once the chain's disposable is in `holder`.
    let chainHeld = Flag()
    /// Seeded busy-waits in nanoseconds: before the chain's start action
    /// returns, in every step, and before dispose().
    let startDelay: Int
    let stepDelay: Int
    let disposeDelay: Int
    /// Whether the disposer first waits until the chain's disposable is held
    /// (else it races the chain's start as well).
    let disposerWaitsForChain: Bool
    /// The step count after which a waiting disposer may go on (0: it does
    /// not wait for steps). Chain steps take a few nanoseconds each, so a
    /// disposer that only lingers a while mostly lands before the first step
    /// or after the last; waiting for a seeded step puts it mid-chain in every
    /// build and on any machine.
    let disposeAfterSteps: Int
    /// Set by the step that brings `stepsRun` to `disposeAfterSteps`.
    let reachedDisposeStep = Flag()
    let token: LiveToken

    // Written by the chain's thread only.
    private var owner: pthread_t?
    var runs: [Int]
    var stepsRun = 0
    var lateStarts = 0
    var startedAfterReturnedEnd = false
    var ranElsewhere = false
    /// Whether the last step (or the chain's start action) to end saw `disposeReturned`.
    private var lastEndSawReturn = false
    var disposeBeganWhenDrained = false
    var heldWhenDrained = 0
    /// The chain's disposable, kept (as an operator's subscription may keep
    /// it) until the iteration is classified: a disposed chain releases its
    /// action and states once it drained, however long its disposable lives.
    var keptChain: Disposable?

    /// Creates the state for one iteration.
    init(_ live: LiveCounter, choices: inout IterationChoices) {
        token = LiveToken(live)
        plan = Plan(
            depth: choices.pick(32), fanOutEvery: 2 + choices.pick(3),
            branchFirst: choices.pick(2) == 1, twigs: choices.pick(2) == 1
        )
        runs = Array(repeating: 0, count: plan.stepCount)
        startDelay = choices.pick(4) == 0 ? choices.pick(1_000) : 0
        // A step of a few hundred nanoseconds makes the chain last long
        // enough for dispose() to land inside it, in every build.
        stepDelay = choices.pick(2) == 0 ? 0 : choices.pick(400)
        // One iteration in four, dispose() races the chain's start as well;
        // otherwise it lands anywhere from before the first step to a little
        // after the chain's expected end.
        disposerWaitsForChain = choices.pick(4) != 0
        disposeAfterSteps = disposerWaitsForChain && choices.pick(2) == 0 ? 1 + choices.pick(plan.expectedSteps) : 0
        let span = startDelay + plan.expectedSteps * (stepDelay + 100)
        if disposeAfterSteps > 0 {
            disposeDelay = choices.pick(stepDelay + 100)
        } else {
            disposeDelay = disposerWaitsForChain ? choices.pick(span + span / 4 + 1) : choices.pick(1_000)
        }
    }

    /// The first step's state.
    func firstStep() -> ChainStep {
        ChainStep(0, held: held)
    }

    /// Called on the chain's thread before it schedules anything.
    func begin() {
        owner = pthread_self()
    }

    /// Hands the chain's disposable to `holder`, wrapped so that the flags
    /// mark its own `dispose()`, whichever thread runs it.
    func hold(_ chain: Disposable) {
        keptChain = chain
        holder.setDisposable(Disposables.create { [self] in
            disposeBegan.set()
            chain.dispose()
            disposeReturned.set()
        })
        chainHeld.set()
    }

    /// The end of the action that started the chain: it lingers a seeded
    /// while, then notes whether `dispose()` already returned (no step may
    /// start then).
    func endStart() {
        spinDelay(nanoseconds: startDelay)
        lastEndSawReturn = disposeReturned.isSet
    }

    /// One step's body: records what it saw, then recurses as the plan says.
    func step(_ state: ChainStep, _ recurse: (ChainStep) -> Void) {
        if disposeReturned.isSet {
            lateStarts += 1
            if lastEndSawReturn {
                startedAfterReturnedEnd = true
            }
        }
        if let owner, pthread_equal(owner, pthread_self()) == 0 {
            ranElsewhere = true
        }
        stepsRun += 1
        if stepsRun == disposeAfterSteps {
            reachedDisposeStep.set()
        }
        if runs.indices.contains(state.id) {
            runs[state.id] += 1
        }
        spinDelay(nanoseconds: stepDelay)
        for child in plan.children(of: state.id) {
            recurse(ChainStep(child, held: held))
        }
        lastEndSawReturn = disposeReturned.isSet
    }

    /// Called on the chain's thread once its trampoline drained: every step
    /// has run or been dropped, and nothing may hold the action or a state.
    func drained() {
        disposeBeganWhenDrained = disposeBegan.isSet
        heldWhenDrained = held.value
    }

    /// The racing disposer: waits (bounded) for the chain's disposable if
    /// the iteration says so, lingers a seeded while, then disposes `holder`.
    func disposeRacing() {
        if disposerWaitsForChain {
            waitBriefly(for: chainHeld)
        }
        // On real threads only: explored, the schedule already decides where
        // the disposal lands among the steps, and a controlled spinner waits
        // until the chain moves, which would rule out disposing before its
        // first step.
        if disposeAfterSteps > 0 && !Exploration.isControlledThread {
            waitBriefly(for: reachedDisposeStep)
        }
        spinDelay(nanoseconds: disposeDelay)
        holder.dispose()
    }

    /// The most rounds a controlled disposer waits for the chain (see `waitBriefly`).
    static let controlledWaitRounds = 8

    /// Waits for `flag`, spinning briefly and then yielding (the thread that
    /// sets it may need this core), for at most about two milliseconds.
    ///
    /// On a thread a schedule controller runs, the wait is at most
    /// `controlledWaitRounds` spin-wait sync points instead: each round lets
    /// the other threads take steps, so the schedule, not the clock, decides
    /// whether the flag is set before the disposer gives up.
    private func waitBriefly(for flag: Flag) {
        if Exploration.isControlledThread {
            for _ in 0..<Self.controlledWaitRounds {
                if flag.isSet || !Exploration.syncPoint(.spinWait) {
                    return
                }
            }
            return
        }
        flag.spinBriefly()
    }

    /// Classifies the iteration. Call once both actors returned.
    func classify() -> RecursiveChainOutcome {
        defer { keptChain = nil }
        if ranElsewhere {
            return .stepOnAnotherThread
        }
        if runs.contains(where: { $0 > 1 }) {
            return .stepRanTwice
        }
        if startedAfterReturnedEnd || lateStarts > 1 {
            return .stepAfterDisposeReturned
        }
        if heldWhenDrained != 0 || held.value != 0 {
            return .actionOrStateKept
        }
        let complete = stepsRun == plan.expectedSteps
        if !complete && !disposeBeganWhenDrained {
            return .stepsLostWithoutDispose
        }
        if lateStarts == 1 {
            return .committedStepAfterDisposeReturned
        }
        if stepsRun == 0 {
            return .disposedBeforeFirstStep
        }
        return complete ? .completed : .stoppedMidChain
    }
}
