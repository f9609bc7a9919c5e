/// What one generated region of a document shows, as its opening comment
/// says: `<!-- report:KIND ARGUMENTS -->`.
///
/// - `report:table BENCHMARK [variants=a,b] metrics=m1,m2 [ratio-to=VARIANT] [params=k=v;…] [allocator=NAME]`:
///   a Markdown table, one row per series (variant and parameter set), one
///   column per metric (the median of the run's repetitions), and with
///   `ratio-to` a column with the first metric's ratio to that variant's.
/// - `report:value BENCHMARK/VARIANT METRIC [params=k=v;…] [allocator=NAME]`:
///   one median, inline.
/// - `report:paired BENCHMARK FIRST SECOND METRIC [params=k=v;…] [allocator=NAME]`:
///   inline, `FIRST`'s values of `METRIC` over `SECOND`'s repetition by
///   repetition (pairs of the same `repetition`): the estimate and 95 %
///   interval of the ratio (`PairedRatioInterval`) and the number of pairs.
/// - `report:sweep BENCHMARK METRIC [variants=a,b] [params=k=v;…] [allocator=NAME]`:
///   a scale sweep as a Markdown table, one row per variant, one column per
///   point `n=` (the median of the run's repetitions; `–` where a variant
///   has no such point), and a last column with the median of the
///   repetitions' own fitted exponents of `METRIC` (the `growth_exponent` or
///   `allocs_growth_exponent` rows with `of=METRIC`; `–` where the run
///   fitted none). `params` picks one series per variant and point (for
///   example `params=phase=run`); several are an error naming them.
/// - `report:compare BASE.csv NEW.csv`: what `BenchRunner compare` prints
///   first and last for two committed runs.
/// - `report:history filter=a,b until=STAMP`: what `BenchRunner history
///   --filter a,b` prints for the committed runs up to the one made at
///   `STAMP` (a result file's UTC time, e.g. `20261128T092112Z`), so that a
///   run committed later does not change the region.
///
/// `params` keeps the series whose parameters include every pair given;
/// series with per-tick samples (`tick=`) are left out unless asked for.
///
/// A table, sweep or value may name its own run with `source=PATH` (a result file,
/// from the repository's root, e.g. an example package's
/// `Examples/MyEventLoop/results/<run>.csv`): it then ignores the document's
/// `report-source`, and `BenchRunner report <run>` does not re-point it.
enum ReportDirective: Equatable, Sendable {
    case table(
        benchmark: String, variants: [String]?, metrics: [String], ratioTo: String?, params: [String: String],
        allocator: String?)
    case value(benchmark: String, variant: String, metric: String, params: [String: String], allocator: String?)
    case sweep(benchmark: String, metric: String, variants: [String]?, params: [String: String], allocator: String?)
    case paired(
        benchmark: String, first: String, second: String, metric: String, params: [String: String], allocator: String?)
    /// `resolution`: a resolution table's path, `none`, or nil for
    /// ``ResolutionTable/defaultPath`` where it exists (as compare run from the root).
    case compare(base: String, new: String, resolution: String?)
    /// `filters`: `history --filter`'s texts; `until`: the newest run's UTC time.
    case history(filters: [String], until: String)

    /// Reads the text between `report:` and `-->`, with the run it names
    /// itself (`source=`), if any; `problem` says what is wrong, for an error message.
    static func parse(_ text: String) -> Result<(directive: ReportDirective, source: String?), ReportDirectiveProblem> {
        switch parseDirective(text) {
        case .failure(let problem): return .failure(problem)
        case .success(let (directive, options)):
            if options["resolution"] != nil {
                guard case .compare = directive else {
                    return .failure(ReportDirectiveProblem("resolution= belongs to report:compare only"))
                }
            }
            guard let source = options["source"] else { return .success((directive, nil)) }
            switch directive {
            case .compare:
                return .failure(ReportDirectiveProblem("report:compare names its two runs itself; it takes no source="))
            case .history:
                return .failure(ReportDirectiveProblem("report:history reads the committed runs; it takes no source="))
            case .table, .value, .sweep, .paired:
                break
            }
            guard !source.isEmpty else {
                return .failure(ReportDirectiveProblem("source= names no file: write source=results/<run>.csv"))
            }
            return .success((directive, source))
        }
    }

    private static func parseDirective(_ text: String) -> Result<(ReportDirective, [String: String]), ReportDirectiveProblem> {
        let words = text.split(whereSeparator: \.isWhitespace).map(String.init)
        guard let kind = words.first else {
            return .failure(ReportDirectiveProblem("an empty directive: write report:table, report:value, report:paired, report:sweep, report:compare or report:history"))
        }
        var positional: [String] = []
        var options: [String: String] = [:]
        for word in words.dropFirst() {
            if let equals = word.firstIndex(of: "="), !word.hasPrefix("results/") {
                let name = String(word[..<equals])
                guard ["variants", "metrics", "ratio-to", "params", "allocator", "source", "resolution", "filter", "until"]
                    .contains(name)
                else {
                    return .failure(
                        ReportDirectiveProblem(
                            "unknown option \(name)= (options: variants=, metrics=, ratio-to=, params=, allocator=, source=, resolution=, filter=, until=)"))
                }
                options[name] = String(word[word.index(after: equals)...])
            } else {
                positional.append(word)
            }
        }
        let params: [String: String]
        switch parseParams(options["params"] ?? "") {
        case .success(let parsed): params = parsed
        case .failure(let problem): return .failure(problem)
        }
        let allocator = options["allocator"]
        switch kind {
        case "table":
            guard positional.count == 1 else {
                return .failure(ReportDirectiveProblem("report:table takes one benchmark name, e.g. report:table observeOn.throughput metrics=elements_per_s"))
            }
            guard let metrics = options["metrics"].map(list), !metrics.isEmpty else {
                return .failure(ReportDirectiveProblem("report:table needs metrics=, e.g. metrics=elements_per_s,allocs_per_element"))
            }
            return .success(
                (.table(
                    benchmark: positional[0], variants: options["variants"].map(list), metrics: metrics,
                    ratioTo: options["ratio-to"], params: params, allocator: allocator), options))
        case "value":
            guard positional.count == 2, let slash = positional[0].firstIndex(of: "/") else {
                return .failure(ReportDirectiveProblem("report:value takes BENCHMARK/VARIANT METRIC, e.g. report:value observeOn.throughput/fast-path elements_per_s"))
            }
            let series = positional[0]
            return .success(
                (.value(
                    benchmark: String(series[..<slash]), variant: String(series[series.index(after: slash)...]),
                    metric: positional[1], params: params, allocator: allocator), options))
        case "paired":
            guard positional.count == 4 else {
                return .failure(ReportDirectiveProblem("report:paired takes BENCHMARK FIRST SECOND METRIC, e.g. report:paired observeOn.throughput actor-executor peer.actor elements_per_s"))
            }
            guard options["variants"] == nil, options["metrics"] == nil, options["ratio-to"] == nil else {
                return .failure(ReportDirectiveProblem("report:paired names its two variants and its metric itself; it takes no variants=, metrics= or ratio-to="))
            }
            return .success(
                (.paired(
                    benchmark: positional[0], first: positional[1], second: positional[2], metric: positional[3],
                    params: params, allocator: allocator), options))
        case "sweep":
            guard positional.count == 2 else {
                return .failure(ReportDirectiveProblem("report:sweep takes BENCHMARK METRIC, e.g. report:sweep scale.fanOut ns_per_delivery"))
            }
            guard options["metrics"] == nil, options["ratio-to"] == nil else {
                return .failure(ReportDirectiveProblem("report:sweep shows one metric, named after the benchmark; it takes no metrics= or ratio-to="))
            }
            return .success(
                (.sweep(
                    benchmark: positional[0], metric: positional[1], variants: options["variants"].map(list),
                    params: params, allocator: allocator), options))
        case "compare":
            guard positional.count == 2, options.keys.allSatisfy({ $0 == "source" || $0 == "resolution" }) else {
                return .failure(ReportDirectiveProblem("report:compare takes two result files and optionally resolution=FILE|none, e.g. report:compare results/A.csv results/B.csv"))
            }
            return .success((.compare(base: positional[0], new: positional[1], resolution: options["resolution"]), options))
        case "history":
            guard positional.isEmpty, let until = options["until"], !until.isEmpty,
                options.keys.allSatisfy({ $0 == "filter" || $0 == "until" || $0 == "source" })
            else {
                return .failure(ReportDirectiveProblem("report:history takes filter=TEXTS and until=STAMP, e.g. report:history filter=trampoline.recursion/current-thread until=20261128T092112Z"))
            }
            return .success((.history(filters: options["filter"].map(list) ?? [], until: until), options))
        default:
            return .failure(ReportDirectiveProblem("unknown kind report:\(kind) (kinds: table, value, paired, sweep, compare, history)"))
        }
    }

    private static func list(_ text: String) -> [String] {
        text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// `k=v;k2=v2` as a dictionary.
    static func parseParams(_ text: String) -> Result<[String: String], ReportDirectiveProblem> {
        var pairs: [String: String] = [:]
        for pair in text.split(separator: ";") where !pair.isEmpty {
            guard let equals = pair.firstIndex(of: "="), equals != pair.startIndex else {
                return .failure(ReportDirectiveProblem("params= takes key=value pairs joined by ';', not '\(pair)'"))
            }
            pairs[String(pair[..<equals])] = String(pair[pair.index(after: equals)...])
        }
        return .success(pairs)
    }
}

/// Why a directive could not be read.
struct ReportDirectiveProblem: Error {
    let message: String
    init(_ message: String) { self.message = message }
}
