import Dispatch
import Foundation
import Schedulers
import XCTest

/// The first program of README.md and of the catalog's Getting Started, as
/// written there (`DocReferenceTests` checks that they show this code), with
/// `print` recording its lines.
final class ReadmeExamplesTests: XCTestCase {
    func testFirstSchedulerProgram() {
        let recorded = NSLock()
        nonisolated(unsafe) var lines: [String] = []
        func print(_ line: String) {
            recorded.lock()
            lines.append(line)
            recorded.unlock()
        }

        // --- doc: README.md, Sources/Schedulers/Schedulers.docc/GettingStarted.md ---
        let bag = DisposeBag()
        let background = SerialDispatchQueueScheduler(qos: .userInitiated)
        let done = DispatchSemaphore(value: 0)

        // Run once, soon, with a state (no closure per call is needed).
        background.schedule("hello") { greeting in
            print("\(greeting) from the background queue")
            return Disposables.create()
        }.disposed(by: bag)

        // Count down recursively, 10 ms apart; disposing the result stops it.
        background.scheduleRecursive(3, dueTime: .milliseconds(10)) { n, recurse in
            print("countdown \(n)")
            if n > 1 {
                recurse.schedule(n - 1, dueTime: .milliseconds(10))
            } else {
                done.signal()
            }
        }.disposed(by: bag)

        // The trampoline: nested work runs after the current action, never deeper in the stack.
        CurrentThreadScheduler.instance.schedule(()) { _ in
            _ = CurrentThreadScheduler.instance.schedule(()) { _ in
                print("second")
                return Disposables.create()
            }
            print("first")
            return Disposables.create()
        }.disposed(by: bag)

        done.wait()
        // --- end ---

        recorded.lock()
        let all = lines
        recorded.unlock()
        XCTAssertEqual(all.count, 6, "\(all)")
        XCTAssertEqual(all.filter { $0 == "first" || $0 == "second" }, ["first", "second"])
        XCTAssertEqual(
            all.filter { $0 != "first" && $0 != "second" },
            ["hello from the background queue", "countdown 3", "countdown 2", "countdown 1"]
        )
    }
}
