import Foundation
import Testing

/// Documentation that cannot rot: every file, symbol, test and stress
/// scenario that README.md, `docs/*.md` and the DocC catalogs cite exists,
/// every guarantee names the code that keeps it and the tests that check
/// it, and every example the documents show is the code a test runs.
///
/// What counts as a citation (outside fenced code blocks):
/// - a DocC symbol link, two backticks: each component of the path
///   (parameters dropped) is declared in `Sources/`;
/// - a code span that is a path under `Sources/`, `Tests/`, `docs/`,
///   `scripts/`, `results/` or `.ci/` (no placeholder such as `<run>`), and
///   the target of a relative Markdown link: the file or folder exists;
/// - `SomethingTests`: a test type (or test target) of that name exists;
///   `SomethingTests.member` or `SomethingTests/member`: a file declaring that
///   type declares the member (XCTest method or Swift Testing function);
/// - `testSomething`: some test file declares `func testSomething`;
/// - a name with `-vs-` in it (a Stress scenario): StressKit's sources name it,
///   or name its family (the part before the first dot) when the rest is a
///   placeholder or is built from a scheduler kind;
/// - in the "Implemented in:", "Checked by:" and "Covers:" paragraphs of Guarantees.md, every
///   code span: an identifier or `Type.member` must be declared in `Sources/`
///   or `Tests/` (besides the forms above); spans with `…` are patterns and
///   must match at least one test function name.
///
/// Failures name the document and line that cite the missing name, so a
/// rename or a move is fixed where it is cited.
@Suite struct DocReferenceTests {
    /// The repository's root, found from this file's path.
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    // MARK: Citations

    @Test func everyCitedFileSymbolTestAndScenarioExists() throws {
        let index = try DeclarationIndex(root: Self.root)
        var problems: [String] = []
        var checked = 0
        for document in try Self.documents() {
            let text = try String(contentsOf: Self.root.appendingPathComponent(document), encoding: .utf8)
            for line in Self.proseLines(of: text) {
                for citation in Self.citations(in: line.text, listContext: line.inCitationList) {
                    checked += 1
                    if let problem = index.problem(with: citation, citedFrom: document) {
                        problems.append("\(document):\(line.number): cites \(citation.display), \(problem)")
                    }
                }
            }
        }
        #expect(checked > 100, "only \(checked) citations found: is the parser still reading the documents?")
        #expect(problems.isEmpty, "\(problems.count) stale citation(s):\n\(problems.joined(separator: "\n"))")
    }

    /// The checker itself: each kind of citation, one that resolves and one that does not.
    @Test func aStaleCitationOfEachKindIsFoundAndALiveOneIsNot() throws {
        let index = try DeclarationIndex(root: Self.root)
        let document = "docs/Example.md"
        func problems(_ line: String, list: Bool = false) -> [String] {
            Self.citations(in: line, listContext: list).compactMap { index.problem(with: $0, citedFrom: document) }
        }
        let live = [
            "``PeriodicDisposable/skippedTicks`` and ``MissedTickPolicy``",
            "`Sources/Schedulers/Internal/ScheduledActionCell.swift` and [CI](CI.md)",
            "`DocReferenceTests`, `DocReferenceTests.aStaleCitationOfEachKindIsFoundAndALiveOneIsNot`",
            "`VirtualTimeSchedulerTests.testDisposingQueuedItemSkipsItAndRemovesItFromTheQueue`",
            "`testDisposingQueuedItemSkipsItAndRemovesItFromTheQueue`, `dispose-vs-action.<scheduler>`",
        ]
        for line in live {
            #expect(problems(line).isEmpty, "\(line): \(problems(line))")
        }
        #expect(problems("`ScheduledActionPhase`, `VirtualSchedulerItem.phase`, `…Guarantee5`", list: true).isEmpty)
        let stale: [(String, Bool)] = [
            ("``PeriodicDisposable/skippedTickz``", false),
            ("`Sources/Schedulers/Internal/Gone.swift`", false),
            ("[gone](Gone.md)", false),
            ("`GoneTests`", false),
            ("`VirtualTimeSchedulerTests.testGone`", false),
            ("`testGoneAway`", false),
            ("`dispose-vs-gone.serial-dispatch`", false),
            ("`ScheduledActionPhaze`", true),
            ("`…NoTestIsNamedSo…`", true),
        ]
        for (line, list) in stale {
            #expect(problems(line, list: list).count == 1, "\(line) should be found stale")
        }
    }

    @Test func everyGuaranteeNamesItsCodeAndItsTests() throws {
        let path = "Sources/Schedulers/Schedulers.docc/Guarantees.md"
        let text = try String(contentsOf: Self.root.appendingPathComponent(path), encoding: .utf8)
        let sections = text.components(separatedBy: "\n## Guarantee ").dropFirst()
        #expect(sections.count == 10, "\(path) should have ten `## Guarantee N` sections, has \(sections.count)")
        for section in sections {
            let title = section.prefix { $0 != "\n" }
            for list in ["Implemented in:", "Checked by:"] {
                guard let start = section.range(of: "\n\(list)\n") else {
                    Issue.record("\(path), Guarantee \(title): no \"\(list)\" list")
                    continue
                }
                let items = section[start.upperBound...].components(separatedBy: "\n\n").first ?? ""
                #expect(
                    items.contains("`"), "\(path), Guarantee \(title): \"\(list)\" cites nothing")
            }
        }
    }

    // MARK: Examples

    @Test func everyDocumentedExampleIsTheCodeATestRuns() throws {
        let regions = try Self.exampleRegions()
        #expect(regions.count >= 10, "only \(regions.count) `// --- doc:` regions found in Tests/")
        var problems: [String] = []
        var codeBlocks: [String: [String]] = [:]
        for region in regions {
            for document in region.documents {
                let url = Self.root.appendingPathComponent(document)
                guard FileManager.default.fileExists(atPath: url.path) else {
                    problems.append("\(region.file):\(region.line): names \(document), which does not exist")
                    continue
                }
                if codeBlocks[document] == nil {
                    codeBlocks[document] = Self.swiftCodeBlocks(
                        of: try String(contentsOf: url, encoding: .utf8))
                }
                if !(codeBlocks[document] ?? []).contains(region.code) {
                    problems.append(
                        "\(region.file):\(region.line): \(document) shows no ```swift block equal to this example "
                            + "(imports aside); copy the region there, or fix the document's block:\n"
                            + region.code)
                }
            }
        }
        #expect(problems.isEmpty, "\n\(problems.joined(separator: "\n"))")
    }

    // MARK: Reading the documents

    /// README.md, `docs/*.md` and every `.docc` catalog's Markdown, as paths from the root.
    static func documents() throws -> [String] {
        var paths = ["README.md"]
        let manager = FileManager.default
        let docs = root.appendingPathComponent("docs")
        if let names = try? manager.contentsOfDirectory(atPath: docs.path) {
            paths += names.filter { $0.hasSuffix(".md") }.sorted().map { "docs/\($0)" }
        }
        let sources = root.appendingPathComponent("Sources")
        for target in try manager.contentsOfDirectory(atPath: sources.path).sorted() {
            let targetURL = sources.appendingPathComponent(target)
            for entry in (try? manager.contentsOfDirectory(atPath: targetURL.path)) ?? [] where entry.hasSuffix(".docc") {
                let catalog = targetURL.appendingPathComponent(entry)
                for name in try manager.contentsOfDirectory(atPath: catalog.path).sorted() where name.hasSuffix(".md") {
                    paths.append("Sources/\(target)/\(entry)/\(name)")
                }
            }
        }
        return paths
    }

    struct ProseLine {
        let number: Int
        let text: String
        /// Inside an "Implemented in:", "Checked by:" or "Covers:" paragraph.
        let inCitationList: Bool
    }

    /// The lines outside fenced code blocks, with their numbers.
    static func proseLines(of text: String) -> [ProseLine] {
        var result: [ProseLine] = []
        var inFence = false
        var inList = false
        for (index, line) in text.components(separatedBy: "\n").enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("```") {
                inFence.toggle()
                continue
            }
            if inFence { continue }
            if trimmed == "Implemented in:" || trimmed == "Checked by:" || trimmed.hasPrefix("Covers:") {
                inList = true
            } else if trimmed.isEmpty {
                inList = false
            }
            result.append(ProseLine(number: index + 1, text: line, inCitationList: inList))
        }
        return result
    }

    struct Citation: CustomStringConvertible {
        enum Kind {
            case symbolLink, codeSpan, markdownLink
        }

        let kind: Kind
        let text: String
        let inCitationList: Bool

        var display: String {
            switch kind {
            case .symbolLink: "``\(text)``"
            case .codeSpan: "`\(text)`"
            case .markdownLink: "link (\(text))"
            }
        }

        var description: String { display }
    }

    /// The symbol links, code spans and relative link targets of one line.
    static func citations(in line: String, listContext: Bool) -> [Citation] {
        var found: [Citation] = []
        var rest = Substring(line)
        while let open = rest.firstIndex(of: "`") {
            let afterOpen = rest[open...]
            let ticks = afterOpen.prefix { $0 == "`" }.count
            let bodyStart = rest.index(open, offsetBy: ticks)
            let fence = String(repeating: "`", count: ticks)
            guard let close = rest[bodyStart...].range(of: fence) else { break }
            let body = String(rest[bodyStart..<close.lowerBound])
            if ticks == 2 {
                found.append(Citation(kind: .symbolLink, text: body, inCitationList: listContext))
            } else if ticks == 1 {
                found.append(Citation(kind: .codeSpan, text: body, inCitationList: listContext))
            }
            rest = rest[close.upperBound...]
        }
        // Relative Markdown links: [text](path), not URLs, not anchors.
        let link = /\]\(([^)\s]+)\)/
        for match in line.matches(of: link) {
            let target = String(match.output.1)
            if target.contains("://") || target.hasPrefix("#") || target.hasPrefix("mailto:") { continue }
            found.append(Citation(kind: .markdownLink, text: target, inCitationList: listContext))
        }
        return found
    }

    // MARK: Examples in tests

    struct ExampleRegion {
        let file: String
        let line: Int
        let documents: [String]
        let code: String
    }

    /// Every `// --- doc: PATH[, PATH] ---` … `// --- end ---` region of the test sources.
    static func exampleRegions() throws -> [ExampleRegion] {
        var regions: [ExampleRegion] = []
        let tests = root.appendingPathComponent("Tests")
        guard let files = FileManager.default.enumerator(at: tests, includingPropertiesForKeys: nil) else { return [] }
        for case let url as URL in files where url.pathExtension == "swift" {
            let path = url.path.replacingOccurrences(of: root.path + "/", with: "")
            let lines = try String(contentsOf: url, encoding: .utf8).components(separatedBy: "\n")
            var index = 0
            while index < lines.count {
                let trimmed = lines[index].trimmingCharacters(in: .whitespaces)
                guard trimmed.hasPrefix("// --- doc:"), trimmed.hasSuffix("---") else {
                    index += 1
                    continue
                }
                let names = trimmed.dropFirst("// --- doc:".count).dropLast(3)
                let documents = names.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                guard let end = lines[(index + 1)...].firstIndex(where: {
                    $0.trimmingCharacters(in: .whitespaces) == "// --- end ---"
                }) else {
                    regions.append(ExampleRegion(file: path, line: index + 1, documents: documents, code: "(no `// --- end ---`)"))
                    break
                }
                regions.append(
                    ExampleRegion(
                        file: path, line: index + 1, documents: documents,
                        code: normalised(Array(lines[(index + 1)..<end]))))
                index = end + 1
            }
        }
        return regions
    }

    /// The ```swift blocks of a document, imports at their top left out.
    static func swiftCodeBlocks(of text: String) -> [String] {
        var blocks: [String] = []
        var current: [String]?
        for line in text.components(separatedBy: "\n") {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if current == nil, trimmed == "```swift" {
                current = []
            } else if current != nil, trimmed == "```" {
                var lines = current ?? []
                while let first = lines.first,
                    first.trimmingCharacters(in: .whitespaces).hasPrefix("import ")
                        || first.trimmingCharacters(in: .whitespaces).isEmpty
                {
                    lines.removeFirst()
                }
                blocks.append(normalised(lines))
                current = nil
            } else if current != nil {
                current?.append(line)
            }
        }
        return blocks
    }

    /// Lines without their common indentation or trailing blanks, empty lines at either end dropped.
    static func normalised(_ lines: [String]) -> String {
        var lines = lines.map { line in
            var line = Substring(line)
            while line.last == " " { line.removeLast() }
            return String(line)
        }
        while lines.first?.isEmpty == true { lines.removeFirst() }
        while lines.last?.isEmpty == true { lines.removeLast() }
        let indent = lines.filter { !$0.isEmpty }.map { $0.prefix { $0 == " " }.count }.min() ?? 0
        return lines.map { $0.isEmpty ? $0 : String($0.dropFirst(indent)) }.joined(separator: "\n")
    }
}

/// The names the sources and tests declare, read once.
struct DeclarationIndex {
    let root: URL
    /// Every declared name in `Sources/` (types, functions, properties, cases).
    var sourceNames: Set<String> = []
    /// Every declared name in `Tests/`.
    var testNames: Set<String> = []
    /// Per test type, every name declared in a file that declares or extends it.
    var membersOfTestType: [String: Set<String>] = [:]
    /// Test target folders (`Tests/<Target>`).
    var testTargets: Set<String> = []
    /// The text of StressKit's sources, for scenario names.
    var stressSources = ""

    init(root: URL) throws {
        self.root = root
        let declaration = /\b(?:class|struct|enum|protocol|actor|typealias|extension|func|var|let|case|associatedtype)\s+([A-Za-z_][A-Za-z0-9_]*)/
        let typeDeclaration = /\b(?:class|struct|enum|actor|extension)\s+([A-Za-z_][A-Za-z0-9_]*Tests)\b/
        for folder in ["Sources", "Tests"] {
            let url = root.appendingPathComponent(folder)
            guard let files = FileManager.default.enumerator(at: url, includingPropertiesForKeys: nil) else { continue }
            for case let file as URL in files where file.pathExtension == "swift" {
                let text = try String(contentsOf: file, encoding: .utf8)
                let names = Set(text.matches(of: declaration).map { String($0.output.1) })
                if folder == "Sources" {
                    sourceNames.formUnion(names)
                    if file.path.contains("/Sources/StressKit/") { stressSources += text }
                } else {
                    testNames.formUnion(names)
                    for match in text.matches(of: typeDeclaration) {
                        membersOfTestType[String(match.output.1), default: []].formUnion(names)
                    }
                }
            }
        }
        let tests = root.appendingPathComponent("Tests")
        testTargets = Set((try? FileManager.default.contentsOfDirectory(atPath: tests.path)) ?? [])
        // Modules: a catalog's landing page is titled ``Module``.
        let sources = root.appendingPathComponent("Sources")
        sourceNames.formUnion((try? FileManager.default.contentsOfDirectory(atPath: sources.path)) ?? [])
    }

    /// Nil when `citation` resolves; otherwise what is missing.
    func problem(with citation: DocReferenceTests.Citation, citedFrom document: String) -> String? {
        let text = citation.text.trimmingCharacters(in: .whitespaces)
        switch citation.kind {
        case .symbolLink:
            return symbolProblem(text)
        case .markdownLink:
            let path = text.components(separatedBy: "#")[0]
            let base = root.appendingPathComponent(document).deletingLastPathComponent()
            let url = base.appendingPathComponent(path).standardizedFileURL
            return FileManager.default.fileExists(atPath: url.path) ? nil : "but \(url.path.replacingOccurrences(of: root.path + "/", with: "")) does not exist"
        case .codeSpan:
            return codeSpanProblem(text, strict: citation.inCitationList)
        }
    }

    private static let pathPrefixes = ["Sources/", "Tests/", "docs/", "scripts/", "results/", ".ci/"]

    private func codeSpanProblem(_ text: String, strict: Bool) -> String? {
        // A path.
        if Self.pathPrefixes.contains(where: text.hasPrefix), !text.contains(" ") {
            if text.contains("<") || text.contains("*") || text.contains("…") { return nil }
            let path = text.hasSuffix("/") ? String(text.dropLast()) : text
            return FileManager.default.fileExists(atPath: root.appendingPathComponent(path).path)
                ? nil : "but no such file or folder exists"
        }
        // A pattern of test names (`…Releases…`): some test function matches.
        if strict, text.contains("…"), !text.contains(" ") {
            let fragments = text.split(separator: "…").map(String.init).filter { !$0.isEmpty }
            let matches = testNames.contains { name in fragments.allSatisfy { name.contains($0) } }
            return matches ? nil : "but no test function's name contains \(fragments.joined(separator: " and "))"
        }
        // A Stress scenario.
        if text.range(of: #"^[a-z][A-Za-z0-9-]*-vs-[A-Za-z0-9-]+(\.[A-Za-z0-9<>-]+)*$"#, options: .regularExpression) != nil {
            if stressSources.contains("\"\(text)\"") { return nil }
            let family = text.prefix { $0 != "." }
            return stressSources.contains("\"\(family).") || stressSources.contains("\"\(family)\"")
                ? nil : "but StressKit has no scenario named so (nor a family \(family))"
        }
        // Test types, test members, XCTest test names.
        let parts = text.split(omittingEmptySubsequences: false) { $0 == "." || $0 == "/" }.map(String.init)
        if parts.allSatisfy(Self.isIdentifier) {
            if parts.count == 1, text.hasSuffix("Tests"), text.first?.isUppercase == true {
                return membersOfTestType[text] != nil || testTargets.contains(text)
                    ? nil : "but no test type or test target is named \(text)"
            }
            if parts.count == 2, parts[0].hasSuffix("Tests"), parts[0].first?.isUppercase == true {
                guard let members = membersOfTestType[parts[0]] else {
                    return "but no test type is named \(parts[0])"
                }
                return members.contains(parts[1]) ? nil : "but \(parts[0]) declares no \(parts[1])"
            }
            if parts.count == 1, text.hasPrefix("test"), text.dropFirst(4).first?.isUppercase == true {
                return testNames.contains(text) ? nil : "but no test function is named \(text)"
            }
            // In the guarantees' lists every identifier is a citation.
            if strict {
                for part in parts where !sourceNames.contains(part) && !testNames.contains(part) {
                    return "but nothing in Sources/ or Tests/ declares \(part)"
                }
            }
        }
        return nil
    }

    private func symbolProblem(_ text: String) -> String? {
        // ``Type/member(_:)``: every component's base name is declared in Sources.
        for component in text.split(separator: "/") {
            let name = String(component.prefix { $0 != "(" && $0 != "-" })
            if ["init", "deinit", "subscript"].contains(name) || name.isEmpty { continue }
            if !sourceNames.contains(name) {
                return "but nothing in Sources/ declares \(name)"
            }
        }
        return nil
    }

    private static func isIdentifier(_ text: String) -> Bool {
        guard let first = text.first, first.isLetter || first == "_" else { return false }
        return text.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" }
    }
}
