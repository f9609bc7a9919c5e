import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Measures how deep plain recursion of a small closure goes before it
/// overflows an 8 MiB stack. The overflow kills the process, so the
/// recursion runs in a child: it stores its depth into a shared file mapping
/// at every level, and the parent reads the last depth after the crash.
package struct PlainRecursionProbe: Sendable {
    /// The child's stack, the usual Linux main-thread limit.
    static let stackBytes = 8 << 20

    /// The executable to start and the arguments that make it call `runChild(counterFile:)`.
    let executable: String
    let arguments: [String]

    package init(executable: String, arguments: [String]) {
        self.executable = executable
        self.arguments = arguments
    }

    /// Starts the child, waits for it to die, returns the depth it reached.
    func measure() throws -> Int {
        let path = NSTemporaryDirectory() + "bench-recursion-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        guard FileManager.default.createFile(atPath: path, contents: Data(count: 8)) else {
            throw BenchmarkFailure("plain recursion probe: cannot create \(path)")
        }
        defer { try? FileManager.default.removeItem(atPath: path) }
        var environment = ProcessInfo.processInfo.environment
        // The crash is the expected end; a backtrace would only cost time.
        environment["SWIFT_BACKTRACE"] = "enable=no"
        // In a build with AddressSanitizer, its SIGSEGV handler would turn the
        // overflow into a report and exit(1); the probe needs the signal.
        // Other builds ignore the variable.
        environment["ASAN_OPTIONS"] = [environment["ASAN_OPTIONS"], "handle_segv=0"]
            .compactMap { $0 }.joined(separator: ":")
        let result: ChildProcess.Result
        do {
            result = try ChildProcess.run(
                executable, arguments: arguments + ["--counter-file", path], environment: environment,
                standardOutput: .discard, standardError: .discard)
        } catch {
            throw BenchmarkFailure("plain recursion probe: cannot start \(executable): \(error)")
        }
        guard let data = FileManager.default.contents(atPath: path), data.count >= 8 else {
            throw BenchmarkFailure("plain recursion probe: the child left no depth")
        }
        let depth = data.withUnsafeBytes { $0.loadUnaligned(as: Int.self) }
        guard result.endedBySignal, depth > 0 else {
            throw BenchmarkFailure(
                "plain recursion probe: the child ended without overflowing its stack (status \(result.status))")
        }
        return depth
    }

    /// The child's side: recurses on a thread with an 8 MiB stack until it
    /// crashes, storing the depth into `counterFile` at every level.
    package static func runChild(counterFile: String) -> Never {
        var noCore = rlimit(rlim_cur: 0, rlim_max: 0)
        setrlimit(Int32(RLIMIT_CORE.rawValue), &noCore)
        let descriptor = open(counterFile, O_RDWR)
        guard descriptor >= 0,
            let mapping = mmap(nil, 8, PROT_READ | PROT_WRITE, MAP_SHARED, descriptor, 0), mapping != MAP_FAILED
        else {
            FileHandle.standardError.write(Data("cannot map \(counterFile)\n".utf8))
            exit(3)
        }
        let counter = UnsafeMutableTransfer(mapping.assumingMemoryBound(to: Int.self))
        let thread = Thread {
            let recursion = Recursion(counter: counter.pointer)
            _ = recursion.step(1)
        }
        thread.stackSize = stackBytes
        thread.start()
        while true {
            sleep(60)
        }
    }

    /// A small closure that calls itself; the `&+ 1` after the call keeps the
    /// optimiser from turning the recursion into a loop.
    final class Recursion {
        let counter: UnsafeMutablePointer<Int>
        var step: (Int) -> Int = { $0 }

        init(counter: UnsafeMutablePointer<Int>) {
            self.counter = counter
            step = { [unowned self] depth in
                self.counter.pointee = depth
                return self.step(depth + 1) &+ 1
            }
        }
    }

    struct UnsafeMutableTransfer: @unchecked Sendable {
        let pointer: UnsafeMutablePointer<Int>
        init(_ pointer: UnsafeMutablePointer<Int>) { self.pointer = pointer }
    }
}
