import Foundation

/// The order of the repository's commits, oldest first, as
/// `git rev-list --topo-order --reverse HEAD` prints it: what `history` orders
/// runs by. A run's revision (the `git_rev` column, a prefix of a commit's
/// hash, `-dirty` when the tree had changes) is placed at its commit.
package struct CommitOrder: Sendable {
    /// Every commit's full hash, oldest first.
    let commits: [String]
    private let positionOfCommit: [String: Int]

    /// The order of `commits` (full hashes, oldest first).
    init(commits: [String]) {
        self.commits = commits
        var positions: [String: Int] = [:]
        for (index, commit) in commits.enumerated() {
            positions[commit] = index
        }
        positionOfCommit = positions
    }

    /// The position of the commit `revision` names (a hash or a prefix of
    /// one of at least 7 hex digits, with or without `-dirty`), nil when no
    /// commit of this order starts with it or more than one does.
    func position(of revision: String) -> Int? {
        let prefix = Self.commitPrefix(of: revision)
        guard prefix.count >= 7 else { return nil }
        if let exact = positionOfCommit[prefix] { return exact }
        var found: Int?
        for (index, commit) in commits.enumerated() where commit.hasPrefix(prefix) {
            guard found == nil else { return nil }
            found = index
        }
        return found
    }

    /// `revision` without a `-dirty` suffix, lowercased.
    static func commitPrefix(of revision: String) -> String {
        var text = revision.lowercased()
        if text.hasSuffix("-dirty") {
            text.removeLast("-dirty".count)
        }
        return text
    }

    /// The order of the repository at `directory`, read with
    /// `git rev-list --topo-order --reverse HEAD` (``GitRepository``); a
    /// failure says why (git missing, not a repository), for the one note a
    /// tool prints before it falls back to the order the results folder's
    /// index records (``CommittedRuns``) or to the runs' timestamps.
    static func read(repository directory: String, git: String = "git") -> Result<CommitOrder, GitUnavailable> {
        GitRepository(directory: directory, program: git).commitOrder()
    }
}
