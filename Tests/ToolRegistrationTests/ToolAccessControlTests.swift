import Foundation
import XCTest

/// The tools' one access-control style (docs/Layout.md, "Access control in
/// the tools"): in a tool module `public` is exactly what a user's `main` or a
/// reader of results calls, each with a doc comment stating its contract;
/// what another module of this package uses is `package`; the rest is
/// internal (tests see it through `@testable import`).
///
/// ``publicSurface`` is the one list of what stays public. A `public`
/// declaration not on it, an entry that no longer declares anything, a
/// public declaration without a doc comment, and a public type or function
/// that neither the example package nor the documentation shows a user
/// calling each fail here, naming the file and line.
final class ToolAccessControlTests: XCTestCase {
    /// The tool modules. The library (`Schedulers`, `SchedulersTesting`) is
    /// not one: its public API is checked by scripts/api-check.sh.
    static let toolModules = [
        "BenchAnalysis", "BenchKit", "BenchRunnerCLI", "SchedulerTools", "StressKit", "ToolRegistration",
        "ToolSupport",
    ]

    /// Every public declaration of the tool modules, by module and file: the
    /// name each declares (`init` for an initialiser).
    static let publicSurface: [String: [String: [String]]] = [
        // What a user's `main` calls (Examples/MyEventLoop, the catalog's
        // "Measuring your own scheduler"): a registration, once for both tools
        // or narrowed to one, and the entry point of either tool or of both.
        "ToolRegistration": [
            "SchedulerRegistration.swift": ["SchedulerRegistration", "init", "stallTimeout"],
        ],
        "BenchKit": [
            "BenchScheduler.swift": ["BenchScheduler", "BenchmarkGroup", "init", "init", "only"],
        ],
        "BenchRunnerCLI": [
            "BenchRunnerMain.swift": ["BenchRunnerMain", "run"],
        ],
        "StressKit": [
            "StressMain.swift": ["StressMain", "run"],
            "StressScheduler.swift": ["StressScheduler", "init", "promisingParallelism"],
        ],
        "SchedulerTools": [
            "SchedulerToolsMain.swift": ["SchedulerToolsMain", "run"],
        ],
        // What a reader of results calls (docs/BenchRunner.md, "Reading
        // results from code"): a result file, its series and the CSV's columns.
        // compare, history, export and report are BenchRunner's subcommands.
        "BenchAnalysis": [
            "ResultFile.swift": [
                "ResultFile", "path", "series", "revisions", "facts", "load",
                "RunFacts", "timestamp", "host", "cpu", "cores", "machine",
            ],
            "ResultSeries.swift": ["ResultSeries", "key", "unit", "values", "firstLine"],
            "ResultSeriesKey.swift": [
                "ResultSeriesKey", "benchmark", "variant", "params", "metric", "allocator", "init", "description",
            ],
            "CompareInputError.swift": ["CompareInputError", "file", "line", "message", "description"],
            "CSVSchema.swift": ["CSVSchema", "columns", "paramsSeparator"],
        ],
        // ToolSupport is no product: nothing of it is public.
        "ToolSupport": [:],
    ]

    /// One public declaration found in the sources.
    struct PublicDeclaration {
        let module: String
        let file: String
        let line: Int
        let text: String
        let name: String
        /// Whether it stands outside any type (its line is not indented).
        let isTopLevel: Bool
        let isFunction: Bool
        let hasDocComment: Bool

        var location: String { "Sources/\(module)/…/\(file):\(line)" }
    }

    static var root: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
    }

    /// A line that declares something `public` or `open`, after its attributes.
    static var declaration: Regex<AnyRegexOutput> {
        try! Regex(#"^\s*(?:@[A-Za-z_]+(?:\([^)]*\))?\s+)*(?:public\b|open\s+(?:class|func|var|subscript|static|override|final)\b)"#)
    }
    /// The name a declaration line declares, when a keyword precedes it.
    static var declaredName: Regex<AnyRegexOutput> {
        try! Regex(#"\b(?:func|var|let|struct|enum|class|actor|protocol|typealias|case)\s+([A-Za-z_][A-Za-z0-9_]*)"#)
    }

    /// The public declarations of `module`'s sources.
    static func publicDeclarations(of module: String) throws -> [PublicDeclaration] {
        let folder = root.appending(path: "Sources/\(module)")
        guard let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil) else {
            throw CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: folder.path])
        }
        var found: [PublicDeclaration] = []
        for case let url as URL in walker where url.pathExtension == "swift" {
            let lines = try String(contentsOf: url, encoding: .utf8).components(separatedBy: "\n")
            for (index, line) in lines.enumerated()
            where (line.contains("public") || line.contains("open ")) && line.firstMatch(of: declaration) != nil {
                var above = index - 1
                while above >= 0, lines[above].trimmingCharacters(in: .whitespaces).hasPrefix("@") { above -= 1 }
                let previous = above >= 0 ? lines[above].trimmingCharacters(in: .whitespaces) : ""
                let name: String
                if let match = line.firstMatch(of: declaredName), let captured = match.output[1].substring {
                    name = String(captured)
                } else {
                    name = line.contains("init") ? "init" : line.trimmingCharacters(in: .whitespaces)
                }
                found.append(PublicDeclaration(
                    module: module, file: url.lastPathComponent, line: index + 1,
                    text: line.trimmingCharacters(in: .whitespaces), name: name,
                    isTopLevel: !(line.first?.isWhitespace ?? false),
                    isFunction: line.contains(" func "),
                    hasDocComment: previous.hasPrefix("///") || previous.hasSuffix("*/")))
            }
        }
        return found
    }

    func testEveryPublicDeclarationIsOnTheListAndEveryEntryDeclaresOne() throws {
        XCTAssertEqual(Set(Self.publicSurface.keys), Set(Self.toolModules), "publicSurface names every tool module")
        for module in Self.toolModules {
            let declarations = try Self.publicDeclarations(of: module)
            let allowed = Self.publicSurface[module] ?? [:]
            let files = Set(declarations.map(\.file)).union(allowed.keys)
            for file in files.sorted() {
                let inFile = declarations.filter { $0.file == file }
                var expected = allowed[file] ?? []
                for declaration in inFile {
                    if let at = expected.firstIndex(of: declaration.name) {
                        expected.remove(at: at)
                    } else {
                        XCTFail("""
                            \(declaration.location): `\(declaration.text)` is public but not on \
                            ToolAccessControlTests.publicSurface: make it `package` if another module of this \
                            package uses it, internal otherwise; public is only what a user's main or a reader \
                            of results calls
                            """)
                    }
                }
                for name in expected {
                    XCTFail("""
                        \(module)/\(file): publicSurface lists `\(name)`, which the file does not declare public: \
                        remove it from the list
                        """)
                }
            }
        }
    }

    func testEveryPublicDeclarationHasADocComment() throws {
        for module in Self.toolModules {
            for declaration in try Self.publicDeclarations(of: module) where !declaration.hasDocComment {
                XCTFail("""
                    \(declaration.location): `\(declaration.text)` is public without a doc comment: say what it \
                    does and what its caller may rely on, in a /// comment above it
                    """)
            }
        }
    }

    /// A public type or function nobody is shown calling is not a user's:
    /// each is named in the example package or in the documentation.
    func testEveryPublicTypeAndFunctionIsShownToAUser() throws {
        let shown = try Self.userFacingText()
        let words = Set(shown.split(whereSeparator: { !($0.isLetter || $0.isNumber || $0 == "_") }).map(String.init))
        for module in Self.toolModules {
            for declaration in try Self.publicDeclarations(of: module)
            where (declaration.isTopLevel || declaration.isFunction) && !words.contains(declaration.name) {
                XCTFail("""
                    \(declaration.location): `\(declaration.name)` is public, but neither Examples/MyEventLoop nor \
                    README.md, docs/ or the catalog's articles show it: document the call, or make it `package`
                    """)
            }
        }
    }

    /// The example package's sources, README.md, docs/*.md and the catalog's articles.
    static func userFacingText() throws -> String {
        var texts: [String] = []
        let manager = FileManager.default
        for folder in ["Examples/MyEventLoop/Sources", "docs", "Sources/Schedulers/Schedulers.docc"] {
            let url = root.appending(path: folder)
            guard let walker = manager.enumerator(at: url, includingPropertiesForKeys: nil) else {
                throw CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: url.path])
            }
            for case let file as URL in walker where ["swift", "md"].contains(file.pathExtension) {
                texts.append(try String(contentsOf: file, encoding: .utf8))
            }
        }
        texts.append(try String(contentsOf: root.appending(path: "README.md"), encoding: .utf8))
        return texts.joined(separator: "\n")
    }

    /// The scan finds what it must: the entry points are public, and a
    /// `package` or internal declaration is not taken for a public one.
    func testTheScanReadsDeclarationsAsWritten() throws {
        let stress = try Self.publicDeclarations(of: "StressKit")
        XCTAssertEqual(stress.filter { $0.file == "StressMain.swift" }.map(\.name), ["StressMain", "run"])
        XCTAssertTrue(stress.allSatisfy(\.hasDocComment))
        let support = try Self.publicDeclarations(of: "ToolSupport")
        XCTAssertEqual(support.count, 0)
        XCTAssertNotNil("    @discardableResult public static func f()".firstMatch(of: Self.declaration))
        XCTAssertNil("    package static func f()".firstMatch(of: Self.declaration))
        XCTAssertNil("    /// the public API".firstMatch(of: Self.declaration))
        XCTAssertNil("        open = nil".firstMatch(of: Self.declaration))
        XCTAssertNotNil("open class Base {".firstMatch(of: Self.declaration))
    }
}
