import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// What a run records about itself in every CSV row: identity, machine, toolchain, allocator.
package struct RunEnvironment: Sendable, Equatable {
    /// `<UTC time>-<git revision>`, also the result file's name.
    package var runID: String
    /// ISO 8601, UTC.
    var timestamp: String
    /// Short revision of the checkout, `-dirty` when it has uncommitted
    /// changes outside the results folder, `unknown` outside git.
    package var gitRevision: String
    var host: String
    var cpu: String
    package var cores: Int
    var swiftVersion: String
    /// `system` or `jemalloc`.
    var allocator: String

    init(
        runID: String, timestamp: String, gitRevision: String, host: String, cpu: String,
        cores: Int, swiftVersion: String, allocator: String
    ) {
        self.runID = runID
        self.timestamp = timestamp
        self.gitRevision = gitRevision
        self.host = host
        self.cpu = cpu
        self.cores = cores
        self.swiftVersion = swiftVersion
        self.allocator = allocator
    }

    /// Reads the environment of the current process and working directory.
    package static func current(allocator: String, date: Date = Date()) -> RunEnvironment {
        let revision = gitRevision()
        let compact = DateFormatter()
        compact.locale = Locale(identifier: "en_US_POSIX")
        compact.timeZone = TimeZone(identifier: "UTC")
        compact.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        let iso = ISO8601DateFormatter()
        iso.timeZone = TimeZone(identifier: "UTC")
        return RunEnvironment(
            runID: "\(compact.string(from: date))-\(revision)",
            timestamp: iso.string(from: date),
            gitRevision: revision,
            host: ProcessInfo.processInfo.hostName,
            cpu: cpuModel(),
            cores: ProcessInfo.processInfo.activeProcessorCount,
            swiftVersion: swiftVersion(),
            allocator: allocator
        )
    }

    /// The revision of the checkout at `directory` (the working directory
    /// when nil), as ``gitRevision`` records it.
    static func gitRevision(in directory: String? = nil) -> String {
        let at = directory.map { ["-C", $0] } ?? []
        guard let revision = runTool("git", at + ["rev-parse", "--short=12", "HEAD"]), !revision.isEmpty else {
            return "unknown"
        }
        // A change inside the results folder is not a change of the code
        // measured: every run rewrites the committed progress history there
        // (ProgressHistory), and a run after it is of the same revision.
        let status = runTool("git", at + ["status", "--porcelain", "--untracked-files=no", "--", ":(top,exclude)results"]) ?? ""
        return status.isEmpty ? revision : revision + "-dirty"
    }

    static func cpuModel() -> String {
        guard let text = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8) else {
            return "unknown"
        }
        for line in text.split(separator: "\n") where line.hasPrefix("model name") {
            if let colon = line.firstIndex(of: ":") {
                return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
        }
        return "unknown"
    }

    /// The toolchain that built this binary: `swift --version` when it is on
    /// the path, else the compiler version known at build time.
    static func swiftVersion() -> String {
        if let output = runTool("swift", ["--version"]),
            let range = output.range(of: #"Swift version [0-9.]+"#, options: .regularExpression)
        {
            return String(output[range].dropFirst("Swift version ".count))
        }
        #if compiler(>=6.4)
        return "6.4+"
        #elseif compiler(>=6.3)
        return "6.3"
        #elseif compiler(>=6.2)
        return "6.2"
        #elseif compiler(>=6.1)
        return "6.1"
        #else
        return "6.0"
        #endif
    }

    /// Runs a tool found on `PATH` and returns its trimmed standard output, or
    /// `nil` when it cannot run or fails.
    static func runTool(_ tool: String, _ arguments: [String]) -> String? {
        guard
            let result = try? ChildProcess.run(
                "/usr/bin/env", arguments: [tool] + arguments, standardOutput: .capture, standardError: .discard),
            !result.endedBySignal, result.status == 0
        else { return nil }
        return String(decoding: result.output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
