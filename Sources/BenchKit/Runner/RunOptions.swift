import ToolSupport

/// The options of `BenchRunner run` as one value: what its parser read
/// (BenchRunnerCLI's `Run` gives its own as a `RunOptions`), and what every
/// process the run starts of this executable is given.
///
/// A child's command line is ``arguments(spellingOut:)`` of the run's
/// options with what the parent decides for that child set as values
/// (``ForkedRun/childOptions(_:repetitions:rowsFile:runID:)``,
/// ``IsolatedRun/childOptions(_:benchmark:rowsFile:runID:)``,
/// ``AllocationChild/childOptions(_:kind:rowsFile:runID:)``,
/// ``InstructionPass/childOptions(_:manifest:runID:)``), so every option
/// the parent was given reaches the child unless the parent sets it.
/// A property's default is the parser's.
package struct RunOptions: Equatable, Sendable {
    /// `--quick`: the reduced suite.
    package var quick = false
    /// `--filter`, each as given (a text may hold several comma-separated patterns).
    package var filters: [String] = []
    /// `--repetitions`: exactly this many repetitions of every variant.
    package var repetitions: Int?
    /// `--min-repetition-ms`: the shortest a timing repetition may be.
    package var minRepetitionMs: Double?
    /// `--floods`: floods of each kind in a repetition of the flood series.
    package var floods: Int?
    /// `--scale`: how far the scale.* sweeps go.
    package var scale: ScaleExtent = .modest
    /// `--scale-n`: the sweeps' points, as given.
    package var scaleN: String?
    /// `--output`: the folder for the CSV.
    package var output = "results"
    /// `--allocator`: how to time and count allocations.
    package var allocator: AllocatorChoice?
    /// `--forks`: processes that share the timing repetitions.
    package var forks = 1
    /// `--isolate`: each benchmark in a process of its own.
    package var isolate = false
    /// `--instructions`: whether the run counts instructions.
    package var instructions: InstructionPass.Mode = .count
    /// `--instruction-child` (internal): the callgrind child.
    package var instructionChild = false
    /// `--only-benchmark` (internal): the one benchmark a child runs.
    package var onlyBenchmark: String?
    /// `--timing-only` (internal): a process of a benchmark timed in processes of its own.
    package var timingOnly = false
    /// `--counts-only` (internal): the counting child.
    package var countsOnly = false
    /// `--rows-file` (internal): where a child writes its rows.
    package var rowsFile: String?
    /// `--run-id` (internal): the run id the parent chose.
    package var runID: String?

    /// Every option at the parser's default.
    package init() {}

    /// The subcommand a child's command line starts with.
    package static let subcommand = "run"

    /// Every option of `run`, in the order a command line gives them: the
    /// user's options first (in the order of `--help`), then those the run
    /// sets for its children.
    package static var encoding: OptionEncoding<RunOptions> {
        OptionEncoding([
            .flag("quick", \.quick),
            .repeated("filter", \.filters),
            .optional("repetitions", \.repetitions),
            .optional("min-repetition-ms", \.minRepetitionMs),
            .optional("floods", \.floods),
            .choice("scale", \.scale, default: .modest),
            .optional("scale-n", \.scaleN),
            .valued("output", \.output, default: "results"),
            .optionalChoice("allocator", \.allocator),
            .valued("forks", \.forks, default: 1),
            .flag("isolate", \.isolate),
            .choice("instructions", \.instructions, default: .count),
            .flag("instruction-child", \.instructionChild),
            .optional("only-benchmark", \.onlyBenchmark),
            .flag("timing-only", \.timingOnly),
            .flag("counts-only", \.countsOnly),
            .optional("rows-file", \.rowsFile),
            .optional("run-id", \.runID),
        ])
    }

    /// The command line (without the program name, before the installed
    /// tool's subcommand: ``ToolInvocation``) that gives these options to
    /// `run`: ``subcommand``, then every option not at its default, and
    /// those named in `spellingOut` whatever their value.
    package func arguments(spellingOut: Set<String> = []) -> [String] {
        [Self.subcommand] + Self.encoding.arguments(self, spellingOut: spellingOut)
    }
}
