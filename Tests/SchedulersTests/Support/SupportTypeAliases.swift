/// The names the test support types had in its first commit; other test
/// files were written against them.
typealias CountingDisposable = DisposalCounter
typealias Counter = ConcurrentCounter
