import ArgumentParser
import Foundation
#if canImport(Glibc)
import Glibc
#endif

// Parses and runs by hand instead of `@main` so that every misuse (an unknown
// option, a bad value, a filter that matches nothing, an unwritable folder)
// ends with a clear message and exit status 2, while help exits 0 and a
// command's own `ExitCode` (compare's 1 for a regression) passes through.
// `BenchRunner --help` also explains the options of `run`, the default command.
let arguments = Array(CommandLine.arguments.dropFirst())
if arguments == ["--help"] || arguments == ["-h"] || arguments == ["help"] {
    print(BenchRunnerCommand.helpMessage())
    print("\nOPTIONS OF `run` (THE DEFAULT COMMAND):")
    let runHelp = Run.helpMessage(for: Run.self)
    if let start = runHelp.range(of: "OPTIONS:") {
        print(runHelp[start.upperBound...])
    } else {
        print(runHelp)
    }
    exit(0)
}

do {
    var command = try BenchRunnerCommand.parseAsRoot()
    try command.run()
    exit(0)
} catch let code as ExitCode {
    exit(code.rawValue)
} catch {
    if BenchRunnerCommand.exitCode(for: error) == .success {
        BenchRunnerCommand.exit(withError: error)
    }
    let message = BenchRunnerCommand.fullMessage(for: error)
    FileHandle.standardError.write(Data("\(message)\n".utf8))
    exit(2)
}
