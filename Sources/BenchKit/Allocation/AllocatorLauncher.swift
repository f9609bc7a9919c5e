import Foundation
import ToolSupport
#if canImport(Glibc)
import Glibc
#endif
import CJemallocShim

/// The allocator a run measures under: a CSV dimension.
package enum AllocatorChoice: String, CaseIterable, Sendable {
    case system, jemalloc, both
}

/// Puts the process on the allocator a run asked for, by re-executing the
/// binary with jemalloc preloaded (or without it), so that the build never
/// needs jemalloc and a machine without it still runs every benchmark.
package enum AllocatorLauncher {
    /// Set in the environment of a re-executed process, so it never re-executes again.
    static let guardVariable = "BENCHRUNNER_ALLOCATOR_REEXEC"

    /// The message shown once when jemalloc is missing.
    static let howToEnable =
        "jemalloc is not installed; to count allocations install it (`sudo apt-get install libjemalloc-dev`) and run again."

    /// Where jemalloc's shared library is, if installed.
    static func jemallocLibraryPath() -> String? {
        let candidates = [
            "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2", "/usr/lib/aarch64-linux-gnu/libjemalloc.so.2",
            "/usr/lib64/libjemalloc.so.2", "/usr/lib/libjemalloc.so.2", "/usr/local/lib/libjemalloc.so.2",
        ]
        if let found = candidates.first(where: { FileManager.default.fileExists(atPath: $0) }) {
            return found
        }
        // Ask the loader's cache (other distributions and multiarch names).
        for tool in ["/sbin/ldconfig", "/usr/sbin/ldconfig"] where FileManager.default.isExecutableFile(atPath: tool) {
            let output = RunEnvironment.runTool(tool, ["-p"]) ?? ""
            for line in output.split(separator: "\n") where line.contains("libjemalloc.so.2") {
                if let arrow = line.range(of: "=> ") {
                    let path = String(line[arrow.upperBound...]).trimmingCharacters(in: .whitespaces)
                    if FileManager.default.fileExists(atPath: path) { return path }
                }
            }
        }
        return nil
    }

    /// Whether jemalloc is the allocator of this process.
    static var jemallocIsLoaded: Bool {
        cjs_available() != 0
    }

    /// What the current process should do before measuring under `allocator`.
    enum Decision: Equatable {
        /// Already right: measure here.
        case proceed
        /// jemalloc was asked for but is not installed: measure on the system allocator and say so.
        case proceedWithoutJemalloc
        /// Replace this process with one whose environment is `environment`.
        case reexecute(environment: [String: String])
    }

    /// Decides how to get onto `allocator` (`.system` or `.jemalloc`) from the
    /// current process state. Pure, so it can be tested.
    static func decide(
        allocator: AllocatorChoice, environment: [String: String], jemallocLoaded: Bool,
        tcacheEnabled: Bool, libraryPath: String?
    ) -> Decision {
        let alreadyReexecuted = environment[guardVariable] != nil
        switch allocator {
        case .jemalloc, .both:
            if jemallocLoaded && !tcacheEnabled { return .proceed }
            guard let libraryPath else { return .proceedWithoutJemalloc }
            if alreadyReexecuted { return jemallocLoaded ? .proceed : .proceedWithoutJemalloc }
            var next = environment
            let preload = (environment["LD_PRELOAD"] ?? "").split(separator: ":").map(String.init)
            if !preload.contains(libraryPath) {
                next["LD_PRELOAD"] = ([libraryPath] + preload).joined(separator: ":")
            }
            let config = environment["MALLOC_CONF"].map { $0 + ",tcache:false" } ?? "tcache:false"
            next["MALLOC_CONF"] = config
            next[guardVariable] = "1"
            return .reexecute(environment: next)
        case .system:
            guard jemallocLoaded, !alreadyReexecuted else { return .proceed }
            var next = environment
            let preload = (environment["LD_PRELOAD"] ?? "").split(separator: ":").filter { !$0.contains("jemalloc") }
            next["LD_PRELOAD"] = preload.joined(separator: ":")
            next[guardVariable] = "1"
            return .reexecute(environment: next)
        }
    }

    /// This executable, for re-executing it and for child processes.
    package static var executablePath: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }

    /// Replaces the current process image with this executable and `arguments`
    /// (after the installed tool's subcommand, ``ToolInvocation``) under `environment` (`execve`: the process keeps its id, so whoever
    /// started it waits for the re-executed run). Returns only on failure.
    static func reexecute(arguments: [String], environment: [String: String]) -> String {
        let executable = executablePath
        let argv: [UnsafeMutablePointer<CChar>?] =
            ([executable] + ToolInvocation.childArguments(arguments)).map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        fflush(nil)
        execve(executable, argv, envp)
        return "could not re-execute \(executable): \(String(cString: strerror(errno)))"
    }
}
