import Foundation
import ToolSupport

/// The two questions the results tools ask git about the repository: the
/// commit order (`history`, the index's list of committed runs) and which
/// files of the results folder are committed (the index). Each answer is
/// either git's or the reason there is none (git not installed, not a
/// repository: a source archive or a vendored copy), which the caller
/// says once before it falls back to what the index records.
package struct GitRepository: Sendable {
    /// The repository's folder (git's `-C`).
    let directory: String
    /// The program run as git, found on `PATH`.
    let program: String

    /// The repository at `directory`, asked through `program` (`git` unless
    /// a test stands in a missing one).
    init(directory: String, program: String = "git") {
        self.directory = directory
        self.program = program
    }

    /// Every commit reachable from `HEAD`, oldest first, as
    /// `git rev-list --topo-order --reverse HEAD` prints them.
    func commitOrder() -> Result<CommitOrder, GitUnavailable> {
        run(["rev-list", "--topo-order", "--reverse", "HEAD"], what: "rev-list").map { output in
            CommitOrder(commits: output.split(whereSeparator: \.isNewline).map(String.init))
        }
    }

    /// The names directly in `folder` (a path from `directory`) that git
    /// tracks: a file, or a subfolder holding a tracked file, as
    /// `git ls-files` lists them in the index (staged files count).
    func trackedNames(in folder: String) -> Result<Set<String>, GitUnavailable> {
        let prefix = folder.hasSuffix("/") ? folder : folder + "/"
        return run(["ls-files", "-z", "--", prefix], what: "ls-files").map { output in
            var names: Set<String> = []
            for path in output.split(separator: "\0") where path.hasPrefix(prefix) {
                if let first = path.dropFirst(prefix.count).split(separator: "/").first {
                    names.insert(String(first))
                }
            }
            return names
        }
    }

    private func run(_ arguments: [String], what: String) -> Result<String, GitUnavailable> {
        guard let outcome = ExternalCommand.run([program, "-C", directory] + arguments) else {
            return .failure(GitUnavailable(reason: "\(program) could not be started"))
        }
        if outcome.status == 127 {
            return .failure(GitUnavailable(reason: "\(program) is not installed (not found on PATH)"))
        }
        guard outcome.status == 0 else {
            let message = outcome.errors.split(separator: "\n").first.map(String.init) ?? "exit status \(outcome.status)"
            return .failure(GitUnavailable(reason: "git \(what) failed: \(message)"))
        }
        return .success(outcome.output)
    }
}

/// Why git could not answer: git missing, or a folder that is not a
/// repository (a source archive).
package struct GitUnavailable: Error, Sendable, Equatable {
    /// What went wrong, for the one note the tool prints.
    let reason: String
}
