import Foundation

/// The repository these tests are part of: its committed results and documents.
enum Repository {
    /// The repository's root folder.
    static var root: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
    }
}
