// swift-tools-version:6.2
import PackageDescription

// Schedulers, MIT License (LICENSE): copyright 2026 The Schedulers authors.
//
// The Schedulers library depends on nothing beyond the toolchain. Only the
// measuring tools (BenchRunner) pull in peers to measure against, and the
// documentation plugin builds the DocC catalog. The public API of the
// Schedulers and SchedulersTesting products follows semantic versioning,
// checked by scripts/api-check.sh (CHANGELOG.md, "What a version number promises").
let package = Package(
    name: "Schedulers",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Schedulers", targets: ["Schedulers"]),
        .library(name: "SchedulersTesting", targets: ["SchedulersTesting"]),
        .executable(name: "BenchRunner", targets: ["BenchRunner"]),
        .executable(name: "Stress", targets: ["Stress"]),
        // Both tools in one executable of a user's, over schedulers described
        // once (Examples/MyEventLoop): `SchedulerToolsMain.run(registering:)`
        // with `bench` and `stress` subcommands.
        .library(name: "SchedulerTools", targets: ["SchedulerTools"]),
        // The tools as libraries, one at a time:
        // `BenchRunnerMain.run(registering:)`, `StressMain.run(registering:)`.
        .library(name: "BenchKit", targets: ["BenchKit", "BenchRunnerCLI"]),
        // Reading result files (ResultFile: a run's series and facts) without
        // the library or any peer; compare and report are BenchRunner's.
        .library(name: "BenchAnalysis", targets: ["BenchAnalysis"]),
        .library(name: "StressKit", targets: ["StressKit"]),
    ],
    traits: [
        // Off by default, and never enabled by a client: the library's sync
        // points (Sources/Schedulers/Internal/SyncPoint.swift) then call the
        // Stress harness's controller, which picks the thread that goes next.
        // `swift build --traits Exploration --scratch-path .build-explore`.
        .trait(
            name: "Exploration",
            description: "Routes the library's locks and atomics through the Stress harness's schedule explorer."
        ),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.2.0"),
        .package(url: "https://github.com/OpenCombine/OpenCombine", from: "0.14.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        // Documentation only: `swift package generate-documentation --target Schedulers`
        // builds the DocC catalog in Sources/Schedulers/Schedulers.docc. No target uses it.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        // Tests only: pointfree's TestClock, run side by side with
        // TestSchedulerClock in ClockComparisonTests. No library or tool uses it.
        .package(url: "https://github.com/pointfreeco/swift-clocks", from: "1.1.1"),
    ],
    targets: [
        // The library: protocols, disposables, builtin schedulers, sequences.
        .target(
            name: "Schedulers",
            dependencies: ["CSchedulersThreadLocal"],
            swiftSettings: [
                .define("SCHEDULERS_EXPLORATION", .when(traits: ["Exploration"])),
                // Every construct Swift cannot prove memory-safe is marked
                // `unsafe` where it stands, with why it is sound (README,
                // "Memory safety"); the build prints no diagnostic.
                .strictMemorySafety(),
            ]
        ),
        // The library's one thread-local pointer (the trampoline), read with a
        // load instead of a call into libc. Part of the library, C only
        // because Swift has no thread-local storage.
        .target(name: "CSchedulersThreadLocal"),
        // Virtual time for tests: TestScheduler and recorded events.
        .target(name: "SchedulersTesting", dependencies: ["Schedulers"], swiftSettings: [.strictMemorySafety()]),

        // What both tools share: CSV writing and strict reading, median and
        // percentiles, number formats and text tables. Foundation only; the
        // Schedulers library never depends on it.
        .target(name: "ToolSupport"),
        // A user's scheduler described once for both tools
        // (SchedulerRegistration): its name and the rule names follow, its
        // factory, isCurrent, gate, teardown and stall timeout, and the check
        // each tool runs when registering it. Neither tool's code.
        .target(name: "ToolRegistration", dependencies: ["Schedulers"]),

        // Reads jemalloc's counters through dlsym, so the build never needs jemalloc.
        .target(name: "CJemallocShim", linkerSettings: [.linkedLibrary("dl")]),
        // What a result file means and what two of them show: the CSV schema
        // and its reader, compare (its verdicts and statistics) and report.
        // Foundation and ToolSupport only: never the library or a peer.
        .target(name: "BenchAnalysis", dependencies: ["ToolSupport"]),
        // BenchRunner's measuring core: the registry, the benchmarks, the
        // runner and the CSV it writes (whose types BenchAnalysis declares).
        .target(
            name: "BenchKit",
            dependencies: [
                "BenchAnalysis",
                "Schedulers",
                "ToolRegistration",
                "ToolSupport",
                "CJemallocShim",
                .product(name: "Histogram", package: "hdrhistogram-swift"),
                .product(name: "OpenCombine", package: "OpenCombine"),
                .product(name: "OpenCombineDispatch", package: "OpenCombine"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ]
        ),
        // BenchRunner's command line, callable from any executable.
        .target(
            name: "BenchRunnerCLI",
            dependencies: [
                "BenchAnalysis",
                "BenchKit",
                "ToolSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(name: "BenchRunner", dependencies: ["BenchRunnerCLI"]),

        // The dispose-race harness and its scenarios.
        .target(
            name: "StressKit",
            dependencies: [
                "Schedulers",
                "ToolRegistration",
                "ToolSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: [.define("SCHEDULERS_EXPLORATION", .when(traits: ["Exploration"]))]
        ),
        .executableTarget(name: "Stress", dependencies: ["StressKit"]),
        // One executable with both tools as subcommands (`bench`, `stress`),
        // over the same registrations.
        .target(
            name: "SchedulerTools",
            dependencies: ["BenchKit", "BenchRunnerCLI", "StressKit", "ToolRegistration", "ToolSupport"]
        ),
        // Counts malloc calls in the test process (wraps glibc's allocator), so
        // tests can assert exact allocation counts without jemalloc; and reads
        // the stack pointer of a caller's frame from C, which AddressSanitizer's
        // fake stack cannot move.
        .target(name: "CAllocationCounter", path: "Tests/CAllocationCounter"),
        .testTarget(
            name: "SchedulersTests",
            dependencies: ["Schedulers", "SchedulersTesting", "CAllocationCounter"]
        ),
        // The verdict table alone: BenchAnalysis without BenchKit, the library or a peer.
        .testTarget(name: "BenchAnalysisTests", dependencies: ["BenchAnalysis"]),
        .testTarget(
            name: "BenchKitTests",
            dependencies: ["BenchAnalysis", "BenchKit", "BenchRunnerCLI", "ToolSupport", "Schedulers"]),
        .testTarget(name: "StressKitTests", dependencies: ["StressKit", "ToolSupport", "Schedulers"]),
        .testTarget(name: "ToolRegistrationTests", dependencies: ["ToolRegistration", "SchedulerTools", "Schedulers"]),
        .testTarget(name: "ToolSupportTests", dependencies: ["ToolSupport"]),
        // TestSchedulerClock against swift-clocks' TestClock: how often a
        // "sleep, advance, check" test misses a wake-up on each.
        .testTarget(
            name: "ClockComparisonTests",
            dependencies: [
                "Schedulers",
                "SchedulersTesting",
                .product(name: "Clocks", package: "swift-clocks"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
