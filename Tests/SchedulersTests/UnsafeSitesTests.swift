import Foundation
import Testing

/// The library builds under Swift's strict memory safety checking, so every
/// construct Swift cannot prove memory-safe is spelled `unsafe` where it
/// stands. These tests keep what docs/MemorySafety.md says about them true: each such
/// expression carries a `// unsafe:` comment saying why it is sound, and
/// docs/MemorySafety.md states how many there are and in how many files.
@Suite struct UnsafeSitesTests {
    /// The repository's root, found from this file's path.
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// One `unsafe` expression in the library's sources.
    struct Site: CustomStringConvertible {
        let file: String
        let line: Int
        let text: String
        let justified: Bool
        var description: String { "\(file):\(line): \(text)" }
    }

    /// Every line of the library targets (`Schedulers`, `SchedulersTesting`)
    /// that uses `unsafe` as the keyword that acknowledges an unsafe
    /// expression (not a name such as `unsafeBitCast`, not a comment).
    static func sites() throws -> [Site] {
        var sites: [Site] = []
        let keyword = try Regex(#"(^|[^A-Za-z0-9_@])unsafe\s+[A-Za-z_(&\[]"#)
        for target in ["Sources/Schedulers", "Sources/SchedulersTesting"] {
            let folder = root.appendingPathComponent(target)
            guard let files = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil) else {
                continue
            }
            for case let url as URL in files where url.pathExtension == "swift" {
                let lines = try String(contentsOf: url, encoding: .utf8).components(separatedBy: "\n")
                for (index, line) in lines.enumerated() {
                    let code = line.components(separatedBy: "//").first ?? ""
                    guard code.contains(keyword) else { continue }
                    // The reason stands in the comment block right above (or at the end of the line).
                    var justified = line.contains("// unsafe:")
                    var above = index - 1
                    while !justified, above >= 0,
                        lines[above].trimmingCharacters(in: .whitespaces).hasPrefix("//")
                    {
                        justified = lines[above].contains("// unsafe:")
                        above -= 1
                    }
                    let path = url.path.replacingOccurrences(of: root.path + "/", with: "")
                    sites.append(
                        Site(
                            file: path, line: index + 1, text: line.trimmingCharacters(in: .whitespaces),
                            justified: justified))
                }
            }
        }
        return sites
    }

    @Test func everyUnsafeExpressionSaysWhyItIsSound() throws {
        let unjustified = try Self.sites().filter { !$0.justified }
        #expect(unjustified.isEmpty, "unsafe without a `// unsafe:` reason above it: \(unjustified)")
    }

    /// Where the count and the files are written down.
    static let document = "docs/MemorySafety.md"

    @Test func memorySafetyDocumentStatesHowManyUnsafeExpressionsThereAreAndWhere() throws {
        let sites = try Self.sites()
        let files = Set(sites.map(\.file))
        let readme = try String(contentsOf: Self.root.appendingPathComponent(Self.document), encoding: .utf8)
        let stated = try #require(
            readme.firstMatch(of: try Regex(#"(\d+) expressions marked `unsafe`, in (\d+) files?"#)),
            "\(Self.document) should say how many expressions are marked `unsafe` and in how many files")
        let statedSites = try #require(Int(stated.output[1].substring ?? ""))
        let statedFiles = try #require(Int(stated.output[2].substring ?? ""))
        #expect(statedSites == sites.count, "\(Self.document) says \(statedSites); the sources have \(sites)")
        #expect(statedFiles == files.count, "\(Self.document) says \(statedFiles) files; the sources have \(files.sorted())")
        for file in files {
            #expect(readme.contains(file), "\(Self.document) should name \(file), which holds unsafe expressions")
        }
    }
}
