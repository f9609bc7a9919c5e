import Foundation

/// The core of `BenchRunner report`: regenerates, or checks, every generated
/// region of the repository's documents (README.md, Performance.md,
/// `docs/*.md` and the DocC catalogs `Sources/*/*.docc/*.md`) from the
/// committed result files they name.
///
/// Exit status: 0 when every region is (now) up to date; 1 when `check`
/// finds a stale region (each is named, with its file and line); 2 for
/// unusable input (a malformed region, a missing or malformed result file, a
/// series the run does not have), with a message naming the file and line.
package enum ReportTool {
    package struct Outcome: Sendable {
        package let status: Int32
        /// What was regenerated or found stale, for standard output.
        package let output: String
        /// Errors, for standard error.
        package let diagnostics: String
    }

    /// The documents that may hold regions, as paths from `root`, in a fixed order.
    static func documents(root: URL) -> [String] {
        let manager = FileManager.default
        var paths: [String] = []
        for name in ["README.md", "Performance.md"] where manager.fileExists(atPath: root.appendingPathComponent(name).path) {
            paths.append(name)
        }
        if let names = try? manager.contentsOfDirectory(atPath: root.appendingPathComponent("docs").path) {
            paths += names.filter { $0.hasSuffix(".md") }.sorted().map { "docs/\($0)" }
        }
        let sources = root.appendingPathComponent("Sources")
        for target in ((try? manager.contentsOfDirectory(atPath: sources.path)) ?? []).sorted() {
            let targetURL = sources.appendingPathComponent(target)
            for entry in ((try? manager.contentsOfDirectory(atPath: targetURL.path)) ?? []).sorted()
            where entry.hasSuffix(".docc") {
                let catalog = targetURL.appendingPathComponent(entry)
                for name in ((try? manager.contentsOfDirectory(atPath: catalog.path)) ?? []).sorted()
                where name.hasSuffix(".md") {
                    paths.append("Sources/\(target)/\(entry)/\(name)")
                }
            }
        }
        return paths
    }

    /// Regenerates every region under `root` (with `newSource`, every
    /// document that names a run now names that one), or with `check` only
    /// reports the regions whose text differs from what the run gives.
    package static func run(root: String, newSource: String? = nil, check: Bool) -> Outcome {
        let rootURL = URL(fileURLWithPath: root).standardizedFileURL
        var source = newSource
        if let given = newSource {
            if check {
                return Outcome(
                    status: 2, output: "",
                    diagnostics: "error: --check checks the runs the documents name; give no result file with it\n")
            }
            let absolute = URL(fileURLWithPath: given, relativeTo: URL(fileURLWithPath: FileManager.default.currentDirectoryPath))
                .standardizedFileURL.path
            guard FileManager.default.fileExists(atPath: absolute) else {
                return Outcome(status: 2, output: "", diagnostics: "error: \(given): no such file\n")
            }
            guard absolute.hasPrefix(rootURL.path + "/") else {
                return Outcome(
                    status: 2, output: "",
                    diagnostics: "error: \(given) is outside the repository (\(rootURL.path)); "
                        + "the documents cite committed runs under results/\n")
            }
            source = String(absolute.dropFirst(rootURL.path.count + 1))
        }
        var cache: [String: ResultFile] = [:]
        let renderer = ReportRenderer(
            load: { (path: String) throws(ReportError) -> ResultFile in
                if let loaded = cache[path] { return loaded }
                let loaded = try loadResultFile(path, root: rootURL)
                cache[path] = loaded
                return loaded
            },
            loadResolution: { (path: String) throws(ReportError) -> ResolutionTable? in
                let url = rootURL.appendingPathComponent(path)
                guard FileManager.default.fileExists(atPath: url.path) else { return nil }
                do throws(CompareInputError) {
                    return try ResolutionTable.load(path: url.path)
                } catch {
                    throw ReportError(path, error.line, error.message)
                }
            },
            loadHistory: { (until: String) throws(ReportError) -> HistoryRuns in
                try committedRuns(until: until, root: rootURL) { path throws(ReportError) in
                    if let loaded = cache[path] { return loaded }
                    let loaded = try loadResultFile(path, root: rootURL)
                    cache[path] = loaded
                    return loaded
                }
            })
        var output = ""
        var stale = 0
        var regions = 0
        var changed: [(path: String, url: URL, text: String, regions: Int)] = []
        do throws(ReportError) {
            for path in documents(root: rootURL) {
                let url = rootURL.appendingPathComponent(path)
                guard let text = try? String(contentsOf: url, encoding: .utf8) else {
                    throw ReportError(path, nil, "cannot be read as UTF-8 text")
                }
                let document = try ReportDocument(path: path, text: text)
                guard !document.regions.isEmpty || document.source != nil else { continue }
                let documentSource = document.source == nil ? nil : (source ?? document.source)
                regions += document.regions.count
                if check {
                    for region in document.regions {
                        let rendered = try renderer.render(region, in: path, source: documentSource)
                        let current = String(text[region.content])
                        if current != (region.isBlock ? rendered + "\n" : rendered) {
                            stale += 1
                            output += "\(path):\(region.line): stale: report:\(region.directiveText)\n"
                        }
                    }
                } else {
                    let rewritten = try document.rewritten(source: source) { region throws(ReportError) in
                        try renderer.render(region, in: path, source: documentSource)
                    }
                    if rewritten != text {
                        changed.append((path, url, rewritten, document.regions.count))
                    }
                }
            }
            // Written only once every document rendered: an error leaves every file as it was.
            for (path, url, rewritten, count) in changed {
                do {
                    try rewritten.write(to: url, atomically: true, encoding: .utf8)
                } catch {
                    throw ReportError(path, nil, "cannot be written: \(error.localizedDescription)")
                }
                output += "\(path): regenerated \(count) region(s)\n"
            }
        } catch {
            return Outcome(status: 2, output: output, diagnostics: "error: \(error)\n")
        }
        if check {
            if stale > 0 {
                output += "\(stale) of \(regions) generated region(s) are stale: run `swift run BenchRunner report` "
                output += "and commit the result.\n"
                return Outcome(status: 1, output: output, diagnostics: "")
            }
            return Outcome(status: 0, output: "All \(regions) generated regions are up to date.\n", diagnostics: "")
        }
        if output.isEmpty { output = "All \(regions) generated regions were already up to date.\n" }
        return Outcome(status: 0, output: output, diagnostics: "")
    }

    /// The committed runs (`results/<UTC time>-<revision>.csv`) made at
    /// `until` or before, read by `load`, in the commit order the results
    /// folder's index records (``CommittedRuns``): a user's own runs in the
    /// folder are not among them, and no git is needed.
    static func committedRuns(
        until: String, root: URL, load: (String) throws(ReportError) -> ResultFile
    ) throws(ReportError) -> HistoryRuns {
        guard let committed = CommittedRuns.read(folder: root.appendingPathComponent("results").path) else {
            throw ReportError(
                "results/\(ResultsIndex.fileName)", nil,
                "lists no committed runs in commit order (run `swift run BenchRunner results index`)")
        }
        guard committed.names.contains(where: { $0.hasPrefix(until) }) else {
            throw ReportError("results", nil, "no committed run was made at \(until) (until= names a result file's UTC time)")
        }
        return try committed.history(folder: "results", until: until, load: load)
    }

    /// Reads the result file a document names (a path from the root).
    static func loadResultFile(_ path: String, root: URL) throws(ReportError) -> ResultFile {
        let url = root.appendingPathComponent(path)
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw ReportError(path, nil, "no such result file (the documents cite runs committed under results/)")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw ReportError(path, nil, "is not UTF-8 text, not a BenchRunner result CSV")
        }
        do {
            return try ResultFile.parse(text: text, path: path)
        } catch {
            throw ReportError(path, error.line, error.message)
        }
    }
}
