import Foundation

/// Whether the calling thread is the process's main thread, asked of the
/// kernel rather than of Foundation: the main thread's id is the process id.
func isKernelMainThread() -> Bool {
    // "/proc/thread-self" links to "<pid>/task/<tid>".
    guard let link = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self") else {
        return Thread.isMainThread
    }
    let parts = link.split(separator: "/")
    return parts.count == 3 && parts[0] == parts[2]
}

