import ArgumentParser
import BenchKit

/// The child process of `plain_recursion_limit`: recurses until the stack overflows.
struct ProbeRecursion: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "probe-recursion",
        abstract: "Internal: recurse until an 8 MiB stack overflows (the child of trampoline.recursion).",
        shouldDisplay: false)

    @Option(help: "File the depth is written into at every level.")
    var counterFile: String

    func run() throws {
        PlainRecursionProbe.runChild(counterFile: counterFile)
    }
}
