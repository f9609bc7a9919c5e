// swift-tools-version:6.2
import PackageDescription

// A scheduler a user would write — a single-thread event loop — described
// once and measured and stress-tested by the repository's tools, which it
// depends on by path.
//
//   swift run -c release MyEventLoop bench --quick        # benchmark it beside the library and the peers
//   swift run -c release MyEventLoop stress               # stress-test it (and the library's schedulers)
//   swift run -c release BrokenEventLoop stress           # a deliberately broken variant: must be caught
//
// MyEventLoopStress and BrokenEventLoopStress run the same registrations
// through Stress alone: a build of them compiles no benchmark and no peer
// (swift-nio, OpenCombine), as CI's ThreadSanitizer build of the example does.
let package = Package(
    name: "MyEventLoop",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Schedulers", path: "../.."),
    ],
    targets: [
        .target(name: "EventLoop", dependencies: [.product(name: "Schedulers", package: "Schedulers")]),
        // The registrations, written once for every executable below.
        .target(
            name: "EventLoopRegistrations",
            dependencies: ["EventLoop", .product(name: "StressKit", package: "Schedulers")]),
        .executableTarget(
            name: "MyEventLoop",
            dependencies: ["EventLoopRegistrations", .product(name: "SchedulerTools", package: "Schedulers")]),
        .executableTarget(
            name: "BrokenEventLoop",
            dependencies: ["EventLoopRegistrations", .product(name: "SchedulerTools", package: "Schedulers")]),
        .executableTarget(
            name: "MyEventLoopStress",
            dependencies: ["EventLoopRegistrations", .product(name: "StressKit", package: "Schedulers")]),
        .executableTarget(
            name: "BrokenEventLoopStress",
            dependencies: ["EventLoopRegistrations", .product(name: "StressKit", package: "Schedulers")]),
    ],
    swiftLanguageModes: [.v6]
)
