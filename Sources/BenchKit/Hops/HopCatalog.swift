/// Every hop variant in the order a run interleaves them: this library's
/// schedulers first, then the peers, then the reference limit.
enum HopCatalog {
    static var all: [HopVariant] {
        LibraryHops.variants + [
            DispatchAsyncHop.variant,
            OpenCombineHop.variant,
            AsyncStreamHop.variant,
            NIOHop.variant,
            BatchedHandoffHop.variant,
        ]
    }
}
