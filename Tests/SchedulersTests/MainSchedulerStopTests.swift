import Dispatch
import Foundation
import Schedulers
import Testing

/// What only a child process can show about the main scheduler: a stop off
/// the main queue, and the main queue after `dispatchMain()`. Exit tests.
@Suite struct MainSchedulerStopTests {
    @Test func ensureExecutingOnSchedulerStopsOffTheMainQueueWithTheMessage() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let done = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                MainScheduler.ensureExecutingOnScheduler(errorMessage: "custom message from the test")
                done.signal()
            }
            done.wait()
        }
        expectStopped(result, messageContaining: "custom message from the test")
    }

    /// Documents why `runMainQueue(until:)` is the way to get main-thread
    /// delivery on Linux: after `dispatchMain()`, libdispatch takes the main
    /// thread out of the program (on Linux it parks it in `sigsuspend`) and its
    /// workers drain the main queue. An exit test's child is started by Swift
    /// Testing's asynchronous entry point, which on Linux has called
    /// `dispatchMain()` by the time the body runs (on a worker thread); the
    /// child reports where main-queue work runs, then exits, since
    /// `dispatchMain()` never returns.
    @Test func afterDispatchMainTheMainQueueRunsOffTheMainThreadOnLinux() async {
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            let mainKey = DispatchSpecificKey<Bool>()
            DispatchQueue.main.setSpecific(key: mainKey, value: true)
            _ = MainScheduler.instance.scheduleInOrder(()) { _ in
                let onMainQueue = DispatchQueue.getSpecific(key: mainKey) == true
                let report = "main queue: \(onMainQueue), kernel main thread: \(isKernelMainThread())\n"
                FileHandle.standardError.write(Data(report.utf8))
                exit(EXIT_SUCCESS)
            }
            sleep(30)
            FileHandle.standardError.write(Data("the main queue did not run within 30 s\n".utf8))
            exit(EXIT_FAILURE)
        }
        let standardError = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #if os(Linux)
        #expect(standardError.contains("main queue: true, kernel main thread: false"), "\(standardError)")
        #else
        #expect(standardError.contains("main queue: true"), "\(standardError)")
        #endif
    }
}
