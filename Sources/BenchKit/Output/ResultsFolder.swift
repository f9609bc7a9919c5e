import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Why a result file could not be written.
package enum ResultsFolderError: Error, CustomStringConvertible, Equatable {
    case unwritableDirectory(path: String, reason: String)
    case writeFailed(path: String, reason: String)

    package var description: String {
        switch self {
        case let .unwritableDirectory(path, reason):
            return "cannot write results to '\(path)': \(reason). Choose another folder with --output."
        case let .writeFailed(path, reason):
            return "could not write '\(path)': \(reason)"
        }
    }
}

/// Writes one CSV per run into a results folder: atomically (the full file
/// appears under its final name or nothing does) and never over an existing file.
package struct ResultsFolder: Sendable {
    let directory: String

    package init(directory: String) {
        self.directory = directory
    }

    /// Creates the folder if needed and proves it is writable, before a run
    /// spends minutes measuring.
    package func checkWritable() throws {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw ResultsFolderError.unwritableDirectory(path: directory, reason: "cannot create it (\(error.localizedDescription))")
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ResultsFolderError.unwritableDirectory(path: directory, reason: "it is not a folder")
        }
        guard access(directory, W_OK | X_OK) == 0 else {
            throw ResultsFolderError.unwritableDirectory(path: directory, reason: String(cString: strerror(errno)))
        }
    }

    /// The file name for a run: `<UTC time>-<git revision>.csv`.
    static func fileName(for environment: RunEnvironment, attempt: Int = 0) -> String {
        attempt == 0 ? "\(environment.runID).csv" : "\(environment.runID)-\(attempt + 1).csv"
    }

    /// Writes `contents` to a fresh file named after the run and returns its path.
    ///
    /// The text goes to a hidden temporary file first, is flushed to disk, and
    /// is then hard-linked to its final name: `link` fails rather than replace
    /// an existing file, so a name already taken gets a `-2`, `-3`... suffix.
    /// Interrupts are held off during these few system calls, so Ctrl-C leaves
    /// either the complete file or none.
    @discardableResult
    package func write(_ contents: String, environment: RunEnvironment) throws -> String {
        try checkWritable()
        var blocked = sigset_t()
        var previous = sigset_t()
        sigemptyset(&blocked)
        sigaddset(&blocked, SIGINT)
        sigaddset(&blocked, SIGTERM)
        sigaddset(&blocked, SIGHUP)
        pthread_sigmask(SIG_BLOCK, &blocked, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }

        let temporary = (directory as NSString).appendingPathComponent(".\(environment.runID).\(getpid()).partial")
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL, 0o644)
        guard descriptor >= 0 else {
            throw ResultsFolderError.writeFailed(path: temporary, reason: String(cString: strerror(errno)))
        }
        defer { unlink(temporary) }
        let bytes = Array(contents.utf8)
        var written = 0
        while written < bytes.count {
            let result = bytes.withUnsafeBufferPointer { buffer -> Int in
                guard let base = buffer.baseAddress else { return 0 }
                return Glibc.write(descriptor, base + written, buffer.count - written)
            }
            if result < 0 {
                if errno == EINTR { continue }
                let reason = String(cString: strerror(errno))
                close(descriptor)
                throw ResultsFolderError.writeFailed(path: temporary, reason: reason)
            }
            written += result
        }
        guard fsync(descriptor) == 0, close(descriptor) == 0 else {
            throw ResultsFolderError.writeFailed(path: temporary, reason: String(cString: strerror(errno)))
        }
        for attempt in 0..<1000 {
            let path = (directory as NSString).appendingPathComponent(ResultsFolder.fileName(for: environment, attempt: attempt))
            if link(temporary, path) == 0 {
                return path
            }
            if errno != EEXIST {
                throw ResultsFolderError.writeFailed(path: path, reason: String(cString: strerror(errno)))
            }
        }
        throw ResultsFolderError.writeFailed(path: directory, reason: "every candidate file name is taken")
    }
}
