import Foundation
import ToolSupport

extension CompareReportFormatter {
    /// What was compared, how, what could not be judged and why the exit
    /// status is what it is.
    func summary() -> String {
        let options = report.options
        let alpha = NumberFormat.plain(options.alpha)
        var text = "\(report.comparisons.count) series compared (base \(report.basePath), new \(report.newPath)): "
        text += CompareVerdict.allCases.map { "\($0.rawValue) \(report.count(of: $0))" }.joined(separator: ", ")
        text += ".\n"
        text += testNote()
        if let resolution = options.resolution {
            text += resolutionNote(resolution)
        }
        text += """
            False discovery rate: \(FalseDiscoveryRate.procedureName) across the \(report.testedCount) tested \
            series at alpha \(alpha): worse and better need q <= \(alpha), q being p adjusted across the run \
            (p: one-sided p-value in the direction the series moved).
            same: the \(confidenceLabel) of the change (Hodges-Lehmann, in % of the base median; each bound a \
            one-sided \(oneSidedConfidence) bound) lies within +-threshold. ~: not shown equal, neither a \
            change beyond the threshold nor sameness within it is shown, and the median did not move beyond the \
            threshold in the harmful direction. moved worse?: the median moved beyond the threshold in the \
            harmful direction (as measured and after the drift correction) but no test confirmed it: \
            not judged, never a pass. change: of the medians.

            """
        text += "Exact counts (allocs_*, bytes_*, depth, type_lookups_*) are compared without a test: "
        if options.exactTolerances.isEmpty {
            text += "any change in the bad direction is worse, whatever the threshold; equal counts are same.\n"
        } else {
            text += "a change in the bad direction beyond the exact tolerance ("
            text += options.exactTolerances.map(\.description).joined(separator: ",")
            text += ") is worse, whatever the threshold.\n"
        }
        if report.comparisons.contains(where: { $0.rule.kind == .instructions }) {
            text += "Instruction counts (instructions_*, callgrind) are exact counts too: a change within "
            text += "\(NumberFormat.plain(MetricKind.instructionTolerance * 100))% of the base count is same "
            text += "(docs/InstructionCounts.md); beyond it, more is worse and fewer is better.\n"
        }
        let wholeAllocationBenchmarks = Set(
            report.comparisons.filter { $0.rule.kind?.isAllocationCount == true }.map(\.key.benchmark)
        ).filter { CSVSchema.benchmark(named: $0)?.countsInWholeAllocations == true }.sorted()
        if !wholeAllocationBenchmarks.isEmpty {
            text += "Counted in whole allocations per operation (\(wholeAllocationBenchmarks.joined(separator: ", "))): "
            text += "a change within \(NumberFormat.plain(BenchmarkSchema.wholeAllocationTolerance)) allocations "
            text += "and \(NumberFormat.plain(BenchmarkSchema.wholeAllocationByteTolerance)) bytes is same, because "
            text += "caches outside the library (libdispatch's continuations) serve a few allocations of a counted "
            text += "batch; one more allocation per operation is still worse.\n"
        }
        text += note(on: .shownOnly) { count in
            "\(count) series are shown, not judged, by design (peers and references measure the "
                + "machine; single-run tails, per-tick samples and machine facts are not the code's); "
                + "only --format csv lists them.\n"
        }
        text += note(on: .noValues) { count in
            "\(count) series have no values on at least one side (empty value: not measured in that run, "
                + "e.g. allocation counting unavailable).\n"
        }
        let unchecked = report.comparisons.filter { comparison in
            comparison.rule.isExact && !(comparison.baseValues ?? []).isEmpty
                && (comparison.newValues ?? []).isEmpty
        }
        if !unchecked.isEmpty {
            text += "Warning: \(unchecked.count) exact-count series of the base have no values in the new file "
                + "(removed, another allocator, or allocation counting unavailable): nothing checks them.\n"
        }
        text += referencesSummary()
        switch options.gate {
        case .all:
            text += "Gate: all metrics.\n"
        case .exact:
            text += "Gate: exact metrics only; timing verdicts are shown but do not affect the exit status.\n"
        }
        text += report.growth.text()
        text += unjudgedSummary()
        text += likelyImprovements()
        text += exitStatusSummary()
        return text
    }

    /// How a timing series is tested, and the thresholds it is tested against.
    func testNote() -> String {
        let options = report.options
        var text = "Test: per timing series, one-sided Mann-Whitney U tests (exact distribution without ties, "
        text += """
            normal approximation with tie correction otherwise) of the new repetitions against the base ones \
            moved by the threshold: worse by more than the threshold, in the metric's harmful direction, \
            and better by more than it; the threshold of \(NumberFormat.plain(options.threshold * 100))%, \
            for wake-up-bound times (hop latency p50, timer lateness and drift, the main queue) \
            \(NumberFormat.plain(max(options.threshold, options.wakeUpThreshold) * 100))%. \
            CPU-bound times are corrected for the machine drift the same run's peers show.

            """
        return text
    }

    /// `note(count)` when `count` series have `verdict`; empty when none has.
    private func note(on verdict: CompareVerdict, _ note: (_ count: Int) -> String) -> String {
        let count = report.count(of: verdict)
        return count > 0 ? note(count) : ""
    }

    /// The likely improvements (`better?`), which never affect the exit
    /// status; empty when there are none.
    func likelyImprovements() -> String {
        let likelyBetter = report.count(of: .possiblyBetter)
        guard likelyBetter > 0 else { return "" }
        let alpha = NumberFormat.plain(report.options.alpha)
        var text = "better?, \(likelyBetter) series: every new repetition better than every base one by more than "
        text += "the threshold (p <= \(alpha)), but not after the correction across the run (q > \(alpha)): "
        text += "likely improvements; more repetitions would confirm them. They do not affect the exit status.\n"
        return text
    }

    /// The regressions, then the summary's last line: the exit status, led
    /// by what moved (the regressions, else the suspected ones), and why.
    func exitStatusSummary() -> String {
        let regressions = report.regressions
        let worseGrowth = report.options.gate == .all ? report.growth.sweeps.filter(\.hasWorseGrowth) : []
        var text = regressions.map { "Regression: \($0.key): \(Self.medians(of: $0))\n" }.joined()
        text += worseGrowth.map { "Regression: the growth of \($0.key): \($0.exponents)\n" }.joined()
        switch report.exitStatus {
        case .regression:
            let count = regressions.count + worseGrowth.count
            text += "\(count) \(count == 1 ? "regression" : "regressions"): exit status 1.\n"
        case .notJudged:
            text += notJudgedLine()
        case .noRegression, .unusableInput:
            let likelyBetter = report.count(of: .possiblyBetter)
            text += "No regression: exit status 0. No gated series moved beyond its threshold in the harmful "
            text += "direction, and every gated series was judged: same \(report.count(of: .same)) (shown equal "
            text += "within the threshold\(Self.sameByKind(report.comparisons))), ~ \(report.count(of: .notShownEqual)) "
            text += "(not shown equal: moved less than the threshold, too noisy to show sameness)"
            text += likelyBetter > 0 ? ", better? \(likelyBetter).\n" : ".\n"
        }
        return text
    }

    /// The last line of a run that exits 3: the suspected regressions first
    /// (gated unjudged series whose median moved beyond the threshold in the
    /// harmful direction, ``SeriesComparison/isSuspectedRegression``:
    /// `worse?` first, then the others, the largest move first), then how
    /// many gated series could not be judged. It opens "No regression found"
    /// only when no gated series moved so.
    func notJudgedLine() -> String {
        let unjudged = report.comparisons.filter(\.isGatedUnjudged)
        let suspects = unjudged.filter(\.isSuspectedRegression).sorted { first, second in
            let firstWorse = first.verdict == .possiblyWorse
            if firstWorse != (second.verdict == .possiblyWorse) { return firstWorse }
            return abs(first.change ?? 0) > abs(second.change ?? 0)
        }
        let ending = "\(unjudged.count) gated series could not be judged: exit status 3, not a pass.\n"
        guard let first = suspects.first else { return "No regression found, but " + ending }
        let change = first.change.map { " " + NumberFormat.percentage($0) } ?? ""
        var text = "Suspected regression: \(first.key)\(change) (\(first.verdict.rawValue))"
        if suspects.count > 1 {
            text += " and \(suspects.count - 1) more gated series moved beyond the threshold in the harmful direction"
        }
        return text + ", not confirmed; " + ending
    }

    /// How many of `comparisons`' `same` are exact counts and how many of
    /// the judged timing series are `same`: a count is `same` whenever it did
    /// not change, so the run's `same` alone says little of its times.
    /// Empty when no gated timing series was judged.
    static func sameByKind(_ comparisons: [SeriesComparison]) -> String {
        let judged = comparisons.filter { $0.isGated && $0.verdict.isJudged }
        let timing = judged.filter { !$0.rule.isExact }
        guard !timing.isEmpty else { return "" }
        let counts = judged.filter { $0.rule.isExact && $0.verdict == .same }.count
        let timingSame = timing.filter { $0.verdict == .same }.count
        let share = NumberFormat.plain((Double(timingSame) / Double(timing.count) * 100).rounded())
        return ": \(counts) exact counts, \(timingSame) of the \(timing.count) judged timing series (\(share) %)"
    }

    /// The references' spreads in each file, and whether each is a stable
    /// bound there (see ``ReferenceBound``). Empty when neither file has one.
    func referencesSummary() -> String {
        let sides = [("base", report.baseReferences), ("new", report.newReferences)].filter { !$0.1.isEmpty }
        guard !sides.isEmpty else { return "" }
        var text = "References (spread: interquartile range over the median of the repetitions; a reference is the "
        text += "limit of what it bounds only where its repetitions are tighter than the library's series beside it):\n"
        for (side, bounds) in sides {
            for bound in bounds {
                text += "  \(side) \(bound.description)\n"
            }
        }
        return text
    }

    /// The part of the summary about series that should have been judged but
    /// could not be: how many, why, which, and how many repetitions a side
    /// would judge them. Empty when every series was judged.
    func unjudgedSummary() -> String {
        let unjudged = report.unjudged
        guard !unjudged.isEmpty else { return "" }
        let alpha = NumberFormat.plain(report.options.alpha)
        let gated = unjudged.filter(\.isGated).count
        var text = "Could not judge \(unjudged.count) series"
        text += gated == unjudged.count ? ":\n" : " (\(gated) of them gated):\n"
        let missed = unjudged.filter { $0.missedItsUsualLevel && $0.factorBeyondCalibratedLevel == nil }
        let offLevel = unjudged.filter { $0.factorBeyondCalibratedLevel != nil }
        let tooFew = unjudged.filter { $0.verdict == .tooFewRepetitions && !$0.missedItsUsualLevel }
        let keptShare = Self.usualLevelShare(of: unjudged)
        if !tooFew.isEmpty {
            text += "Too few repetitions, \(tooFew.count) series: even if every new repetition were worse than every "
            text += "base one, p could not reach \(alpha): \(Self.repetitionCounts(of: tooFew))"
            if let any = report.repetitionsForAnyVerdict {
                text += ". A verdict needs at least \(any) repetitions a side"
                if keptShare < 1 {
                    let made = Int((Double(any) / keptShare).rounded(.up))
                    text += "; a series read at its usual level keeps only the repetitions within "
                    text += "\(NumberFormat.plain(BenchmarkSchema.usualLevelBand)) times its run's fastest (here as "
                    text += "few as \(NumberFormat.plain((keptShare * 100).rounded())) %), so make about \(made) or "
                    text += "more a side (BenchRunner --repetitions \(made)), or make them on a quieter machine"
                }
            }
            text += ".\n"
        }
        if !missed.isEmpty {
            let share = NumberFormat.plain((BenchmarkSchema.usualLevelMinimumShare * 100).rounded())
            text += """
                Not at the usual level, \(missed.count) series (too few repetitions): a run kept fewer than \
                \(share) % of its repetitions within \(NumberFormat.plain(BenchmarkSchema.usualLevelBand)) times \
                their fastest (the median over its benchmark's series; here \(Self.repetitionCounts(of: missed))). \
                The machine's slower levels took most of that \
                run (Performance.md, "Hops across processes"), so it did not measure the usual level, and more \
                repetitions would not either: make it again when the machine is quieter (nothing else running; \
                the levels come and go over minutes).

                """
        }
        if !offLevel.isEmpty, let machine = report.options.resolution?.machine {
            let factors = offLevel.compactMap(\.factorBeyondCalibratedLevel)
            func shown(_ factor: Double) -> String { NumberFormat.plain((factor * 100).rounded() / 100) }
            let low = factors.min() ?? 0
            let high = factors.max() ?? 0
            text += """
                Not at the usual level, \(offLevel.count) series (off the calibrated level): a run's median sits \
                \(shown(low))\(high > low ? "-\(shown(high))" : "") \
                times beyond the level the calibration runs on \(machine) measured (more than \
                \(shown(ResolutionTable.calibratedLevelLimit)) times: the machine's slow level, not its usual one). The slow \
                level may have held that whole run, which its own repetitions cannot tell, or the code may be \
                that much slower: make the run again when the machine is quieter; if it stays there, the code \
                changed, and the table wants calibrating anew (BenchRunner calibrate).

                """
        }
        let unconfirmed = unjudged.filter { $0.verdict == .possiblyWorse }
        if !unconfirmed.isEmpty {
            text += "worse?, \(unconfirmed.count) series: every new repetition worse than every base one by more "
            text += "than the threshold (p <= \(alpha), as small as these repetitions allow), but not after the "
            text += "correction across the run (q > \(alpha)): a regression or one of the run's chance findings; "
            text += "only more repetitions can tell.\n"
        }
        let processBound = unjudged.filter { $0.verdict == .movedWorse && $0.rule.isProcessBound }
        let moved = unjudged.filter { $0.verdict == .movedWorse && !$0.rule.isProcessBound }
        if !processBound.isEmpty {
            text += "moved worse? (process-bound), \(processBound.count) series: \(Self.processBoundMove)\n"
        }
        if !moved.isEmpty {
            text += """
                moved worse?, \(moved.count) series: the median moved beyond its threshold in the harmful \
                direction, but the repetitions overlap too much for the test to confirm it (spread below: \
                interquartile range over the median). Not a pass. What would judge them: more repetitions \
                (e.g. BenchRunner --repetitions \(Self.repetitionsToConfirm(moved, alpha: report.options.alpha)) \
                for both runs, or spread across processes with --forks 3), longer repetitions \
                (--min-repetition-ms 200, or the default run instead of --quick: more elements a repetition), \
                or a quieter machine (nothing else building or running).

                """
        }
        if let lone = report.repetitionsForALoneChange {
            let level = report.options.alpha / Double(max(1, report.judgeableCount))
            let reached = MannWhitneyUTest.minimumAchievablePValue(m: lone, n: lone, alternative: .secondGreater)
            text += "Repetitions needed: \(lone) a side (both runs, e.g. BenchRunner --repetitions \(lone)): "
            text += "then a single series whose every repetition got worse beyond the threshold reaches "
            text += "p = \(Self.probability(reached)) <= \(alpha)/\(max(1, report.judgeableCount)) = "
            text += "\(Self.probability(level)) and stays worse after the correction across the "
            text += "\(report.judgeableCount) judgeable series"
            if keptShare < 1 {
                text += "; for a series read at its usual level, \(lone) at that level: about "
                text += "\(Int((Double(lone) / keptShare).rounded(.up))) made a side"
            }
            text += ".\n"
        }
        text += "Not judged:\n"
        for comparison in unjudged {
            text += "  \(comparison.key): \(comparison.verdict.rawValue)"
            text += comparison.missedItsUsualLevel ? " (not at the usual level)" : ""
            text += comparison.isGated ? "" : " (not gated)"
            text += ", \(comparison.baseValues?.count ?? 0)/\(comparison.newValues?.count ?? 0) repetitions"
            text += ", \(Self.medians(of: comparison))"
            if let test = comparison.worseTest, let adjusted = comparison.adjustedWorseP {
                text += ", p \(Self.probability(test.pValue)), q \(Self.probability(adjusted))"
            }
            if comparison.verdict == .movedWorse {
                text += ", spread base \(Self.spread(comparison.baseValues)), new \(Self.spread(comparison.newValues))"
            }
            text += "\n"
        }
        return text
    }

    /// The repetition counts of `comparisons`, grouped: "2 with 5 base / 5
    /// new repetitions (smallest possible p …)", for a series read at its
    /// usual level the repetitions there of those the run made.
    static func repetitionCounts(of comparisons: [SeriesComparison]) -> String {
        var sizes: [String: Int] = [:]
        var order: [String] = []
        for comparison in comparisons {
            let (base, new) = comparison.judgedRepetitions
            let made = max(comparison.baseValues?.count ?? 0, comparison.newValues?.count ?? 0)
            let minimum = probability(
                MannWhitneyUTest.minimumAchievablePValue(m: base, n: new, alternative: .secondGreater))
            let level = comparison.rule.readsUsualLevel && made > 0 ? " at the usual level of the \(made) a run made" : ""
            let size = "\(base) base / \(new) new repetitions\(level) (smallest possible p \(minimum))"
            if sizes[size] == nil {
                order.append(size)
            }
            sizes[size, default: 0] += 1
        }
        return order.map { "\(sizes[$0] ?? 0) with \($0)" }.joined(separator: "; ")
    }

    /// The smallest share of a run's repetitions that an unjudged series read
    /// at its usual level kept, on either side
    /// (``MetricComparisonRule/usualLevelShare(_:)``); 1 when no such series
    /// is unjudged. A series whose
    /// run missed its usual level (``SeriesComparison/missedItsUsualLevel``)
    /// is left out: more repetitions would not judge it.
    static func usualLevelShare(of unjudged: [SeriesComparison]) -> Double {
        var share = 1.0
        for comparison in unjudged where comparison.rule.readsUsualLevel && !comparison.missedItsUsualLevel {
            for values in [comparison.baseValues, comparison.newValues].compactMap({ $0 }) {
                share = min(share, comparison.rule.usualLevelShare(values))
            }
        }
        return share
    }

    /// What `moved worse? (process-bound)` means, and what to do about it.
    static let processBoundMove = [
        "the median moved beyond its threshold in the harmful direction, in a series whose level is set by the",
        "state of the whole process (after a busy queue, the allocator's heap), which differs between two",
        "processes of one binary by more than the threshold. Repetitions from one process cannot tell a change",
        "of the code from that, so compare does not judge it. Not a pass: rerun both, and read the series beside",
        "its quiet twin in the same run (observeOn.throughput) rather than across runs.",
    ].joined(separator: " ")

    /// What the resolution table is and whether the compared runs are like
    /// its calibration runs.
    func resolutionNote(_ table: ResolutionTable) -> String {
        func entry(_ comparison: SeriesComparison) -> ResolutionTable.Entry? {
            table.entry(
                for: comparison.key,
                repetitions: max(comparison.baseValues?.count ?? 0, comparison.newValues?.count ?? 0))
        }
        let calibrated = report.comparisons.filter { $0.worseTest != nil && entry($0) != nil }
        let raised = calibrated.filter { $0.threshold > $0.declaredThreshold }
        // The calibrations whose entries these runs' series use.
        let used = Set(calibrated.compactMap { entry($0)?.calibration })
        let sources = table.calibrations.filter { used.isEmpty || used.contains($0.key) }.map(\.described)
        var text = "Resolution: \(table.path), from " + sources.joined(separator: " and ") + ": "
        text += "a calibrated series is worse (or better) only when "
        text += "its median also moved beyond the larger of its threshold and the smallest change two such runs tell "
        text += "apart on that machine (the tests ask about the threshold alone) "
        text += "(\(calibrated.count) tested series calibrated, \(raised.count) of them with a threshold raised by it; "
        text += "column threshold). It holds for runs made like the calibration runs, on a machine as quiet.\n"
        if let machine = table.machine, !table.calibratedOnMachine, !calibrated.isEmpty,
            table.calibrations.allSatisfy({ !$0.cpu.isEmpty })
        {
            text += "Note: both runs ran on \(machine), which no calibration ran on: the resolution is another "
            text += "machine's, whose levels and spreads may differ; calibrate on this one (BenchRunner calibrate, "
            text += "four or more runs of one binary) for thresholds that hold here.\n"
        }
        let counts = report.comparisons.compactMap { comparison -> Int? in
            guard comparison.worseTest != nil else { return nil }
            return max(comparison.baseValues?.count ?? 0, comparison.newValues?.count ?? 0)
        }
        for (side, values) in [("base", \SeriesComparison.baseValues), ("new", \SeriesComparison.newValues)] {
            let ratios = calibrated.compactMap { comparison -> Double? in
                guard let spread = entry(comparison)?.spread, spread > 0,
                    let values = comparison[keyPath: values],
                    let own = RepetitionSpread.relativeInterquartileRange(values)
                else { return nil }
                return own / spread
            }
            if let ratio = Statistics.median(ratios), ratio > ResolutionTable.busierSpreadRatio {
                text += "Note: the \(side) run's repetitions spread \(NumberFormat.plain((ratio * 10).rounded() / 10))x "
                text += "as widely as the calibration runs' (median over the calibrated series): it was made on a busier "
                text += "machine, where two runs of one binary move more than the resolution allows for; a move beyond "
                text += "a threshold may be the machine's.\n"
            }
        }
        let withinResolution = report.comparisons.filter(\.movedWithinResolution)
        if !withinResolution.isEmpty {
            text += "Moved beyond the threshold in the harmful direction, but within the resolution (~: what two runs "
            text += "of one binary do here by chance; a quieter machine, more calibration runs or --resolution none "
            text += "would judge them against the threshold), \(withinResolution.count) series:\n"
            for comparison in withinResolution {
                text += "  \(comparison.key): \(comparison.change.map(NumberFormat.percentage) ?? "?"), resolution "
                text += Self.thresholdText(comparison.threshold) + "\n"
            }
        }
        let calibratedCounts = calibrated.compactMap { entry($0)?.repetitions }
        if let typical = Statistics.median(counts.map(Double.init)),
            let calibration = Statistics.median(calibratedCounts.map(Double.init)), Int(typical) != Int(calibration)
        {
            text += "Note: these runs have \(Int(typical)) repetitions a series, the calibration runs of their series "
            text += "\(Int(calibration)): the resolution was measured for another suite (calibrate anew).\n"
        }
        return text
    }
}
