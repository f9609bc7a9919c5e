/// The disposable of a periodic job: cancels the job and reports how many
/// ticks it skipped.
///
/// A tick is skipped when it came due while the previous tick of the same job
/// was still running, or when the timer behind the job fired late enough to
/// merge several ticks into one. Disposing stops the job: no tick starts after
/// `dispose()` returns (DESIGN.md guarantee 6).
public protocol PeriodicDisposable: Cancelable { var skippedTicks: Int { get } }
