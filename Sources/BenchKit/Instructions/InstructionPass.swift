import Foundation
import ToolSupport

/// Instruction counts per operation, counted by callgrind in a child process:
/// the deterministic measure of CPU work on one thread, which a shared
/// machine's timings cannot give (docs/InstructionCounts.md).
///
/// The parent (``rows(plans:options:runID:note:)``) copies this executable
/// without its debug information (valgrind 3.19 cannot read the DWARF 5 the
/// toolchain writes; the symbol table stays), and runs the copy under
/// `valgrind --tool=callgrind` with collection off except inside
/// ``InstructionCountedRegion/measure(_:)`` (given by its exact symbol),
/// dumping a profile after each call. The child (``runChild(plans:manifestPath:environment:)``) runs
/// every selected plan's ``InstructionWorkload`` in order, each entering the
/// region once, and writes a manifest of what it counted; the parent pairs
/// the k-th profile with the k-th manifest row and writes instructions per
/// operation, with `callgrind` in the `allocator` column (the counter, as
/// allocation rows carry `jemalloc`). The child always runs on the system
/// allocator.
package enum InstructionPass {
    /// Whether a run counts instructions (`--instructions`).
    package enum Mode: String, CaseIterable, Sendable {
        /// After the timings and allocation counts (the default).
        case count
        /// Not at all.
        case skip
        /// Nothing else: a run that writes only the instruction rows (the CI gate's run).
        case only
    }

    /// The `allocator` column's value of an instruction row: the counter.
    package static let counterName = "callgrind"

    /// The message shown once when valgrind is missing.
    static let howToEnable =
        "valgrind is not installed; to count instructions install it (`sudo apt-get install valgrind`) and run again."

    /// Why instructions cannot be counted on this machine, or nil when they can.
    static var unavailableReason: String? {
        if tool("valgrind") == nil { return howToEnable }
        if tool("objcopy") == nil || tool("nm") == nil {
            return "objcopy and nm are not installed (package binutils); instruction counting needs them."
        }
        return nil
    }

    /// The plans among `plans` that count instructions.
    package static func counted(_ plans: [MeasurementPlan]) -> [MeasurementPlan] {
        plans.filter { $0.countInstructions != nil && $0.unavailableReason == nil }
    }

    /// The instruction rows of `plans` without values: what a run writes
    /// when instructions cannot be counted.
    static func emptyRows(of plans: [MeasurementPlan]) -> [CSVRow] {
        counted(plans).flatMap { plan -> [CSVRow] in
            guard let workload = plan.countInstructions else { return [] }
            let row = CSVRow(
                benchmark: plan.benchmark, variant: plan.variant, params: workload.params, metric: workload.metric.name,
                unit: workload.metric.unit, repetition: 1, value: nil, allocator: counterName)
            return rows(for: row, values: [nil, nil, nil])
        }
    }

    /// The instruction rows of `plans` for a run with `options`: counted by
    /// callgrind children (``childOptions(_:manifest:runID:)``), or empty
    /// values with one `note` saying why (valgrind missing, a child failed).
    package static func rows(
        plans: [MeasurementPlan], options: RunOptions, runID: String, note: (String) -> Void
    ) -> [CSVRow] {
        guard !counted(plans).isEmpty else { return [] }
        if let reason = unavailableReason {
            note("note: instruction counts are left empty: \(reason)")
            return emptyRows(of: plans)
        }
        do {
            return try count(options: options, runID: runID)
        } catch {
            note("note: instruction counts are missing: \(error)")
            return emptyRows(of: plans)
        }
    }

    /// How many callgrind children count each workload: the rows keep each
    /// series' fewest instructions. What varies between children of one
    /// binary only ever adds work to the counted region (another thread
    /// of the process running inside it, an allocator path taken by
    /// alignment), so the minimum is the code's own count: single children
    /// of one binary spread by more than the 0.5 % tolerance
    /// (docs/InstructionCounts.md has the figures).
    static let children = 3

    /// Runs ``children`` callgrind children for a run with `options`, side by side,
    /// and returns their counted rows, the fewest instructions of each
    /// series. Throws when valgrind is missing or a child fails.
    ///
    /// The children run at once (each in a directory of its own): callgrind
    /// counts the instructions a process executes, which another process
    /// on the machine cannot change, and what it can change (when a waiting
    /// thread of the child wakes, and so how long another one spins) only
    /// adds work, which the fewest of the three leaves out. On two cores
    /// this takes the three children's time from about 18 s to about 8 s.
    package static func count(options: RunOptions, runID: String) throws -> [CSVRow] {
        // One thread a child, all at once (not one per core): each thread
        // only waits for its valgrind, and the machine shares its cores
        // among them.
        let started = (0..<children).map { index in
            ThreadWork { Result { try countOnce(options: options, runID: runID, child: index) } }
        }
        var fewest: [CSVRow] = []
        for child in started {
            let rows = try child.wait().get()
            if fewest.isEmpty {
                fewest = rows
                continue
            }
            guard rows.count == fewest.count else {
                throw BenchmarkFailure("callgrind children counted \(fewest.count) and \(rows.count) series")
            }
            for (index, row) in rows.enumerated() {
                let kept = fewest[index]
                guard row.benchmark == kept.benchmark, row.variant == kept.variant, row.params == kept.params,
                    row.metric == kept.metric
                else {
                    throw BenchmarkFailure("callgrind children counted different series in row \(index + 1)")
                }
                if let value = row.value, value < kept.value ?? .infinity {
                    fewest[index].value = value
                }
            }
        }
        return fewest
    }

    /// Runs one callgrind child for a run with `options` and returns its counted
    /// rows; `child` (0 to 9) tells the children of one run apart.
    static func countOnce(options: RunOptions, runID: String, child: Int = 0) throws -> [CSVRow] {
        if let reason = unavailableReason { throw BenchmarkFailure("cannot count instructions: \(reason)") }
        guard let valgrind = tool("valgrind"), let objcopy = tool("objcopy") else {
            throw BenchmarkFailure("cannot count instructions: \(howToEnable)")
        }
        // The pid and the child's number padded to a fixed width: the child's
        // arguments name this directory, and their length moves the stack's
        // alignment.
        let directory =
            NSTemporaryDirectory() + ".bench-instructions-" + String(format: "%09d", getpid() % 1_000_000_000)
            + String(child % 10)
        try? FileManager.default.removeItem(atPath: directory)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let binary = directory + "/BenchRunner"
        let stripped = try ChildProcess.run(
            objcopy, arguments: ["--strip-debug", AllocatorLauncher.executablePath, binary], standardOutput: .discard)
        guard stripped.status == 0, !stripped.endedBySignal else {
            throw BenchmarkFailure("objcopy could not copy \(AllocatorLauncher.executablePath) (status \(stripped.status))")
        }
        let symbol = try regionSymbol(in: binary)
        let manifest = directory + "/manifest.csv"
        let log = directory + "/valgrind.log"
        let valgrindArguments =
            [
                "--tool=callgrind", "--collect-atstart=no",
                "--toggle-collect=\(symbol)", "--dump-after=\(symbol)",
                "--callgrind-out-file=\(directory)/callgrind.out", "--log-file=\(log)", binary,
            ] + ToolInvocation.childArguments(childArguments(options, manifest: manifest, runID: runID))
        // Addresses decide some instruction counts (glibc's copy and
        // allocation paths take different branches by alignment), so the
        // child runs without address-space randomisation where `setarch -R`
        // can turn it off: then two runs of one binary lay memory out alike.
        let (launcher, launchArguments) =
            if let setarch = tool("setarch") {
                (setarch, [machineName(), "-R", valgrind] + valgrindArguments)
            } else {
                (valgrind, valgrindArguments)
            }
        let result = try ChildProcess.run(
            launcher, arguments: launchArguments, environment: childEnvironment,
            standardOutput: .discard)
        guard !result.endedBySignal, result.status == 0,
            let text = try? String(contentsOfFile: manifest, encoding: .utf8)
        else {
            let tail = ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").suffix(5)
            throw BenchmarkFailure(
                "the callgrind process failed (status \(result.status))"
                    + (tail.isEmpty ? "" : ":\n  " + tail.joined(separator: "\n  ")))
        }
        let files = try FileManager.default.contentsOfDirectory(atPath: directory)
        var profiles: [Int: CallgrindProfile] = [:]
        for file in files {
            guard let number = profileNumber(file) else { continue }
            let contents = try String(contentsOfFile: directory + "/" + file, encoding: .utf8)
            guard let profile = CallgrindProfile.parse(contents) else {
                throw BenchmarkFailure("callgrind's profile \(file) has no total")
            }
            profiles[number] = profile
        }
        return try pair(manifest: AllocationChild.rows(fromCSV: text), profiles: profiles)
    }

    /// The symbol of ``InstructionCountedRegion/measure(_:)`` in `binary`:
    /// the one function whose name ``InstructionCountedRegion/symbolPattern``
    /// matches. Callgrind is given this exact name: `--dump-after` ignores a
    /// wildcard pattern that `--toggle-collect` accepts (valgrind 3.19), and
    /// `--toggle-collect` flips collection at every function it matches, so
    /// a second match would count the wrong region. Throws unless exactly
    /// one function matches.
    static func regionSymbol(in binary: String) throws -> String {
        guard let nm = tool("nm") else { throw BenchmarkFailure("cannot count instructions: nm is not installed") }
        let listed = try ChildProcess.run(
            nm, arguments: ["--defined-only", binary], standardOutput: .capture, standardError: .discard)
        let matching = regionSymbols(inSymbolTable: String(decoding: listed.output, as: UTF8.self))
        guard listed.status == 0, matching.count == 1, let symbol = matching.first else {
            throw BenchmarkFailure(
                "the counted region's pattern \(InstructionCountedRegion.symbolPattern) matches \(matching.count) "
                    + "functions of \(binary), not one: \(matching.joined(separator: ", "))")
        }
        return symbol
    }

    /// The text symbols of `nm` output that the region's pattern matches.
    static func regionSymbols(inSymbolTable text: String) -> [String] {
        text.split(separator: "\n").compactMap { line -> String? in
            let fields = line.split(separator: " ")
            guard fields.count == 3, fields[1] == "T" || fields[1] == "t" else { return nil }
            let name = String(fields[2])
            return fnmatch(InstructionCountedRegion.symbolPattern, name, 0) == 0 ? name : nil
        }
    }

    /// The rows of each manifest row (whose value is its operations) and
    /// profile k + 1, per operation: the instructions outside type lookups
    /// (the workload's own metric), the type lookups
    /// (``Metric/typeLookupsPerOperation``) and their instructions
    /// (``Metric/lookupInstructionsPerOperation``), in that order (see
    /// ``CallgrindProfile``). Throws when a profile is missing.
    static func pair(manifest: [CSVRow], profiles: [Int: CallgrindProfile]) throws -> [CSVRow] {
        try manifest.enumerated().flatMap { index, row -> [CSVRow] in
            guard let profile = profiles[index + 1], let operations = row.value, operations > 0 else {
                throw BenchmarkFailure(
                    "callgrind wrote no profile for \(row.benchmark)/\(row.variant) (the \(index + 1)th counted region)")
            }
            return rows(for: row, values: [
                Double(profile.ownInstructions) / operations,
                Double(profile.lookups) / operations,
                Double(profile.lookupInstructions) / operations,
            ])
        }
    }

    /// The metrics a counted workload writes after its own instruction
    /// metric, in the order ``pair(manifest:profiles:)`` gives them values.
    static let lookupMetrics: [Metric] = [.typeLookupsPerOperation, .lookupInstructionsPerOperation]

    /// `row` as the three rows of one counted workload, with `values` (nil
    /// values for an empty run).
    static func rows(for row: CSVRow, values: [Double?]) -> [CSVRow] {
        let metrics = [Metric(row.metric, unit: row.unit, kind: .instructions, direction: .lowerIsBetter)] + lookupMetrics
        return zip(metrics, values).map { metric, value in
            var counted = row
            counted.metric = metric.name
            counted.unit = metric.unit
            counted.value = value
            counted.allocator = counterName
            return counted
        }
    }

    /// `n` for a profile file `callgrind.out.n` (one per counted region, in
    /// order); nil for any other file, including the final dump at exit.
    static func profileNumber(_ file: String) -> Int? {
        let prefix = "callgrind.out."
        guard file.hasPrefix(prefix) else { return nil }
        return Int(file.dropFirst(prefix.count))
    }

    /// The child's options: the parent's `options` with what the parent
    /// decides for it set: the callgrind child (whatever `--instructions`
    /// said), on the system allocator (no `--allocator`), in one process,
    /// not the counting child, its manifest written to `manifest`, and the
    /// parent's run id.
    package static func childOptions(_ options: RunOptions, manifest: String, runID: String) -> RunOptions {
        var child = options
        child.instructions = .count
        child.instructionChild = true
        child.allocator = nil
        child.forks = 1
        child.countsOnly = false
        child.rowsFile = manifest
        child.runID = runID
        return child
    }

    /// The child's command line (``childOptions(_:manifest:runID:)``), with
    /// `--output` written even at its default: the child writes no CSV
    /// there, but the length of its arguments moves the stack's alignment
    /// and with it some counts, so a run that names the default folder
    /// (`--output results`, as the baseline's is made) and one that leaves
    /// it out give their children arguments of one length.
    static func childArguments(_ options: RunOptions, manifest: String, runID: String) -> [String] {
        childOptions(options, manifest: manifest, runID: runID).arguments(spellingOut: ["output"])
    }

    /// The child's whole environment, the same whatever the parent's: the
    /// system allocator (no jemalloc preload, whatever `--allocator`), the
    /// runtime's deterministic hashing (without it, hashing workloads such
    /// as virtual time count differently from run to run), and nothing else,
    /// because the environment's size moves the stack's alignment and with it
    /// some counts (a few more characters in the child's arguments move some
    /// series beyond the tolerance): a baseline made in one shell must hold
    /// in CI's.
    static let childEnvironment = ["PATH": "/usr/local/bin:/usr/bin:/bin", "SWIFT_DETERMINISTIC_HASHING": "1"]

    /// The child's side: runs the workload of every plan in `plans` that
    /// has one, in order, each entering the counted region exactly once, and
    /// writes the manifest (one row per workload, its value the operations).
    package static func runChild(plans: [MeasurementPlan], manifestPath: String, environment: RunEnvironment) throws {
        var rows: [CSVRow] = []
        for plan in counted(plans) {
            guard let workload = plan.countInstructions else { continue }
            var entered = 0
            try workload.run { body in
                entered += 1
                InstructionCountedRegion.measure(body)
            }
            guard entered == 1 else {
                throw BenchmarkFailure(
                    "\(plan.identifier): an instruction workload enters its counted region once, not \(entered) times")
            }
            rows.append(
                CSVRow(
                    benchmark: plan.benchmark, variant: plan.variant, params: workload.params, metric: workload.metric.name,
                    unit: workload.metric.unit, repetition: 1, value: Double(workload.operations),
                    allocator: counterName))
        }
        try CSVWriter(environment: environment).document(rows).write(toFile: manifestPath, atomically: true, encoding: .utf8)
    }

    /// The full path of `name` on `PATH`, if it is there.
    /// The machine name `setarch` takes (`uname -m`: x86_64, aarch64).
    static func machineName() -> String {
        var names = utsname()
        uname(&names)
        return withUnsafeBytes(of: &names.machine) { bytes in
            String(decoding: bytes.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
    }

    static func tool(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }
}
