/// A Markdown document with generated regions: each between an opening
/// `<!-- report:KIND … -->` and a closing `<!-- /report -->`, and the run
/// they come from named once per document by `<!-- report-source: PATH -->`.
///
/// A region whose opening comment stands alone on its line is a block: the
/// generated text goes on the lines between the two comments. Otherwise it
/// is inline: the text goes between the two comments on the same line.
/// Markers inside fenced code blocks (```) are text, not regions.
package struct ReportDocument: Sendable {
    /// The document as named in messages (a path from the repository's root).
    let path: String
    let text: String
    /// The `report-source` path, if the document names one.
    let source: String?
    /// The line of the `report-source` comment.
    let sourceLine: Int?
    let regions: [ReportRegion]

    static let sourcePrefix = "<!-- report-source:"
    static let openPrefix = "<!-- report:"
    static let close = "<!-- /report -->"
    static let commentEnd = "-->"

    /// Reads the regions of `text`; `path` names it in errors.
    init(path: String, text: String) throws(ReportError) {
        self.path = path
        self.text = text
        var source: String?
        var sourceLine: Int?
        var regions: [ReportRegion] = []
        var open:
            (directive: ReportDirective, source: String?, text: String, line: Int, contentStart: String.Index, block: Bool)?
        var inFence = false
        var lineNumber = 0
        var lineStart = text.startIndex
        while lineStart < text.endIndex || (lineStart == text.endIndex && lineNumber == 0) {
            lineNumber += 1
            let lineEnd = text[lineStart...].firstIndex(of: "\n") ?? text.endIndex
            let line = text[lineStart..<lineEnd]
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            defer { lineStart = lineEnd < text.endIndex ? text.index(after: lineEnd) : text.endIndex }
            if trimmed.hasPrefix("```") {
                // Generated text may hold a fenced block of its own: inside a region, only the closing comment counts.
                if open?.block == true {
                    if lineEnd == text.endIndex { break }
                    continue
                }
                inFence.toggle()
                if lineEnd == text.endIndex { break }
                continue
            }
            if inFence {
                if lineEnd == text.endIndex { break }
                continue
            }
            if trimmed.hasPrefix(Self.sourcePrefix) {
                guard source == nil else {
                    throw ReportError(path, lineNumber, "a second report-source: a document names one run (first on line \(sourceLine ?? 0))")
                }
                guard trimmed.hasSuffix(Self.commentEnd) else {
                    throw ReportError(path, lineNumber, "report-source is not closed with -->")
                }
                let named = trimmed.dropFirst(Self.sourcePrefix.count).dropLast(Self.commentEnd.count)
                    .trimmingCharacters(in: .whitespaces)
                guard !named.isEmpty else {
                    throw ReportError(path, lineNumber, "report-source names no file: write <!-- report-source: results/<run>.csv -->")
                }
                source = named
                sourceLine = lineNumber
            }
            // Markers on this line, in order.
            var cursor = lineStart
            while cursor < lineEnd {
                let rest = text[cursor..<lineEnd]
                let nextOpen = rest.range(of: Self.openPrefix)
                let nextClose = rest.range(of: Self.close)
                if let current = open {
                    guard let closing = nextClose else {
                        if nextOpen != nil {
                            throw ReportError(path, lineNumber, "a region opens inside the region opened on line \(current.line): close that one first with <!-- /report -->")
                        }
                        break
                    }
                    if let nextOpen, nextOpen.lowerBound < closing.lowerBound {
                        throw ReportError(path, lineNumber, "a region opens inside the region opened on line \(current.line): close that one first with <!-- /report -->")
                    }
                    let contentEnd: String.Index
                    if current.block {
                        // The generated lines end at the line break before the closing comment.
                        guard text[lineStart..<closing.lowerBound].allSatisfy(\.isWhitespace) else {
                            throw ReportError(path, lineNumber, "the closing <!-- /report --> of the block opened on line \(current.line) must stand on a line of its own")
                        }
                        contentEnd = lineStart
                    } else {
                        guard lineNumber == current.line else {
                            throw ReportError(path, current.line, "the inline region opened here is not closed on the same line: add <!-- /report -->")
                        }
                        contentEnd = closing.lowerBound
                    }
                    regions.append(
                        ReportRegion(
                            directive: current.directive, source: current.source, directiveText: current.text,
                            line: current.line,
                            content: current.contentStart..<contentEnd, isBlock: current.block))
                    open = nil
                    cursor = closing.upperBound
                    continue
                }
                if let closing = nextClose, nextOpen.map({ closing.lowerBound < $0.lowerBound }) ?? true {
                    throw ReportError(path, lineNumber, "<!-- /report --> closes no region")
                }
                guard let opening = nextOpen else { break }
                guard let end = text[opening.upperBound..<lineEnd].range(of: Self.commentEnd) else {
                    throw ReportError(path, lineNumber, "<!-- report: is not closed with --> on its line")
                }
                let directiveText = String(text[opening.upperBound..<end.lowerBound]).trimmingCharacters(in: .whitespaces)
                let directive: ReportDirective
                let regionSource: String?
                switch ReportDirective.parse(directiveText) {
                case .success(let parsed): (directive, regionSource) = parsed
                case .failure(let problem): throw ReportError(path, lineNumber, problem.message)
                }
                let startsLine = text[lineStart..<opening.lowerBound].allSatisfy(\.isWhitespace)
                let block = startsLine && text[end.upperBound..<lineEnd].allSatisfy(\.isWhitespace)
                if startsLine, !block {
                    throw ReportError(
                        path, lineNumber,
                        "an inline region must not begin a line: Markdown reads a line that begins with <!-- as HTML "
                            + "and drops the figure; put a word before it, or give the region lines of its own")
                }
                let contentStart = block ? (lineEnd < text.endIndex ? text.index(after: lineEnd) : lineEnd) : end.upperBound
                open = (directive, regionSource, directiveText, lineNumber, contentStart, block)
                cursor = end.upperBound
            }
            if lineEnd == text.endIndex { break }
        }
        if let open {
            throw ReportError(path, open.line, "the region opened here is never closed: add <!-- /report -->")
        }
        self.source = source
        self.sourceLine = sourceLine
        self.regions = regions
    }

    /// The document with every region's content replaced by `render`'s text
    /// for it, and `report-source` pointing at `newSource` when given.
    func rewritten(
        source newSource: String? = nil, render: (ReportRegion) throws(ReportError) -> String
    ) throws(ReportError) -> String {
        var result = ""
        var cursor = text.startIndex
        for region in regions {
            result += text[cursor..<region.content.lowerBound]
            let rendered = try render(region)
            result += region.isBlock ? rendered + "\n" : rendered
            cursor = region.content.upperBound
        }
        result += text[cursor...]
        if let newSource, let source, newSource != source {
            result = result.replacingOccurrences(
                of: "\(Self.sourcePrefix) \(source) -->", with: "\(Self.sourcePrefix) \(newSource) -->")
        }
        return result
    }
}

/// One generated region of a ``ReportDocument``.
package struct ReportRegion: Sendable {
    let directive: ReportDirective
    /// The run the region names itself (`source=`), which the document's
    /// `report-source` does not override and `BenchRunner report <run>` does
    /// not re-point; `nil` for a region that shows the document's run.
    let source: String?
    /// The directive as written, for messages.
    let directiveText: String
    /// The line of the opening comment.
    let line: Int
    /// The generated text now in the document.
    let content: Range<String.Index>
    /// A block (its own lines) or inline (inside a line).
    let isBlock: Bool
}

/// A document or result file the report cannot use: the file, the line
/// and what to do.
package struct ReportError: Error, CustomStringConvertible, Equatable, Sendable {
    let file: String
    let line: Int?
    let message: String

    init(_ file: String, _ line: Int?, _ message: String) {
        self.file = file
        self.line = line
        self.message = message
    }

    package var description: String {
        line.map { "\(file):\($0): \(message)" } ?? "\(file): \(message)"
    }
}
