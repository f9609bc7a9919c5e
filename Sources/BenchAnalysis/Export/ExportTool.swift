import Foundation

/// The core of `BenchRunner export`: reads one result file and writes its
/// series in one ``ExportFormat``, to standard output or a file.
///
/// Exit status: 0 the export was written (it may hold no series: a custom
/// tool's direction the run has none of); 2 unusable input (a missing or
/// malformed result file, an output file that cannot be written), with a
/// message naming the file and, where one applies, the line.
package enum ExportTool {
    /// What one export produces: the JSON for standard output (empty when
    /// it went to a file), a line for standard error saying what was
    /// exported, and the exit status.
    package struct Outcome: Sendable {
        /// 0 written, 2 unusable input.
        package let status: Int32
        /// The JSON, when no output file was given.
        package let output: String
        /// What was exported and left out, or the error.
        package let diagnostics: String
    }

    /// Exports the run at `path` in `format`, into the file at `outputPath`
    /// (replaced if it exists) or, when nil, into ``Outcome/output``.
    package static func run(path: String, format: ExportFormat, outputPath: String?) -> Outcome {
        let file: ResultFile
        do {
            file = try ResultFile.load(path: path)
        } catch {
            return Outcome(status: 2, output: "", diagnostics: "error: \(error)\n")
        }
        let selection = ExportSelection(file)
        let json = format.json(selection)
        let destination = outputPath.map { " into \($0)" } ?? ""
        var summary = "\(path): exported \(format.count(selection)) series as \(format.rawValue)\(destination)"
        if selection.leftOut > 0 {
            summary += "; left out \(selection.leftOut) (informational or undeclared metrics, or no values)"
        }
        summary += "\n"
        guard let outputPath else {
            return Outcome(status: 0, output: json, diagnostics: summary)
        }
        do {
            try Data(json.utf8).write(to: URL(fileURLWithPath: outputPath), options: .atomic)
        } catch {
            return Outcome(
                status: 2, output: "",
                diagnostics: "error: \(outputPath): cannot be written (\(error.localizedDescription)); "
                    + "choose another --output\n")
        }
        return Outcome(status: 0, output: "", diagnostics: summary)
    }
}
