// swift-tools-version:6.2
import PackageDescription

// A scheduler a user would write — a single-thread event loop — measured and
// stress-tested by the repository's tools, which it depends on by path.
//
//   swift run -c release MyEventLoopBench --quick     # benchmark it beside the library and the peers
//   swift run -c release MyEventLoopStress            # stress-test it (and the library's schedulers)
//   swift run -c release BrokenEventLoopStress        # a deliberately broken variant: must be caught
let package = Package(
    name: "MyEventLoop",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Schedulers", path: "../.."),
    ],
    targets: [
        .target(name: "EventLoop", dependencies: [.product(name: "Schedulers", package: "Schedulers")]),
        .executableTarget(
            name: "MyEventLoopBench",
            dependencies: ["EventLoop", .product(name: "BenchKit", package: "Schedulers")]),
        .executableTarget(
            name: "MyEventLoopStress",
            dependencies: ["EventLoop", .product(name: "StressKit", package: "Schedulers")]),
        .executableTarget(
            name: "BrokenEventLoopStress",
            dependencies: ["EventLoop", .product(name: "StressKit", package: "Schedulers")]),
    ],
    swiftLanguageModes: [.v6]
)
