// swift-tools-version: 6.0
import PackageDescription

let package = Package(
  name: "swift-shared-state",
  products: [
    .library(name: "SharedState", targets: ["SharedState"]),
    // The same keys on PostgreSQL, in a product of its own: only programs that ask for it build
    // SwiftNIO and postgres-nio.
    .library(name: "SharedStatePostgres", targets: ["SharedStatePostgres"]),
    // Changes on a GLib main loop and Swift's main actor inside it, for GTK programs: a product
    // of its own, so that only programs that ask for it need GLib.
    .library(name: "SharedStateGLib", targets: ["SharedStateGLib"]),
    .executable(name: "shared-demo", targets: ["SharedDemo"]),
    // The command users install: get, set, reset, list and monitor values from a shell.
    .executable(name: "shared-state", targets: ["SharedStateTool"]),
    // The demo as a GTK 4 window, on the same suite format as `shared-demo ui`.
    .executable(name: "shared-demo-gtk", targets: ["SharedDemoGTK"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    .package(url: "https://github.com/pointfreeco/swift-concurrency-extras", from: "1.4.3"),
    .package(url: "https://github.com/pointfreeco/swift-custom-dump", from: "1.7.3"),
    .package(url: "https://github.com/pointfreeco/swift-dependencies", from: "1.17.1"),
    .package(url: "https://github.com/pointfreeco/swift-identified-collections", from: "1.1.1"),
    .package(url: "https://github.com/pointfreeco/xctest-dynamic-overlay", from: "1.13.1"),
    .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
    // Atomics on the memory-mapped coordination page shared between processes.
    .package(url: "https://github.com/apple/swift-atomics", from: "1.3.0"),
    // Combine's API on Linux, for `$shared.publisher`; swift-dependencies already builds it.
    .package(url: "https://github.com/OpenCombine/OpenCombine", from: "0.14.0"),
    // PostgreSQL, for SharedStatePostgres only.
    .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
    // `swift package generate-documentation`, for scripts/docs.sh; a plugin only, linked into
    // no product.
    .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
  ],
  targets: [
    // Debian's libinotifytools0-dev. The module's header stops the build with a message naming
    // the package when it is missing, instead of a bare "file not found".
    .systemLibrary(
      name: "CInotifyTools",
      path: "Sources/CInotifyTools",
      providers: [.apt(["libinotifytools0-dev"])]
    ),
    // Linux calls that Swift's Glibc module leaves out (renameat2, open-file-description locks).
    .target(name: "CSystemCalls"),
    .target(
      name: "SharedState",
      dependencies: [
        "CInotifyTools",
        "CSystemCalls",
        .product(name: "ConcurrencyExtras", package: "swift-concurrency-extras"),
        .product(name: "CustomDump", package: "swift-custom-dump"),
        .product(name: "Dependencies", package: "swift-dependencies"),
        .product(name: "IdentifiedCollections", package: "swift-identified-collections"),
        .product(name: "IssueReporting", package: "xctest-dynamic-overlay"),
        .product(name: "SystemPackage", package: "swift-system"),
        .product(name: "Atomics", package: "swift-atomics"),
        .product(name: "OpenCombineShim", package: "OpenCombine"),
      ]
    ),
    .target(
      name: "SharedStatePostgres",
      dependencies: [
        "SharedState",
        .product(name: "PostgresNIO", package: "postgres-nio"),
      ]
    ),
    // GLib (Debian's libglib2.0-dev, which libgtk-4-dev brings), and libdispatch's hooks for a
    // foreign loop that runs the main queue.
    .systemLibrary(
      name: "CGLib",
      path: "Sources/CGLib",
      pkgConfig: "glib-2.0",
      providers: [.apt(["libglib2.0-dev"])]
    ),
    .target(
      name: "SharedStateGLib",
      dependencies: ["SharedState", "CGLib"]
    ),
    // GTK 4 (Debian's libgtk-4-dev), for the GTK demo; the header adds the macros Swift cannot
    // import as functions.
    .systemLibrary(
      name: "CGTK",
      path: "Sources/CGTK",
      pkgConfig: "gtk4",
      providers: [.apt(["libgtk-4-dev"])]
    ),
    // What both demos share: the keys of a suite and the types stored under them, so that the
    // terminal demo and the GTK demo open one suite together.
    .target(
      name: "SharedDemoSuite",
      dependencies: [
        "SharedState",
        .product(name: "IdentifiedCollections", package: "swift-identified-collections"),
      ],
      path: "DemoSuite"
    ),
    .executableTarget(
      name: "SharedDemoGTK",
      dependencies: [
        "CGTK",
        "SharedDemoSuite",
        "SharedState",
        "SharedStateGLib",
        .product(name: "IdentifiedCollections", package: "swift-identified-collections"),
        .product(name: "OpenCombineShim", package: "OpenCombine"),
      ],
      path: "DemoGTK"
    ),
    // The complete program of the DocC article "Embedding in a GTK application", built so that
    // it stays true.
    .executableTarget(
      name: "GTKCounterExample",
      dependencies: ["CGTK", "SharedState", "SharedStateGLib"],
      path: "Examples/GTKCounter"
    ),
    // What `shared-state` and `shared-demo` share: the stored value a command names, JSON in
    // and out, the operations on a value, one-sentence errors and exit statuses.
    .target(
      name: "SharedStateCommandLine",
      dependencies: [
        "SharedState",
        "SharedStatePostgres",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "IssueReporting", package: "xctest-dynamic-overlay"),
      ],
      path: "CommandLine"
    ),
    .executableTarget(
      name: "SharedStateTool",
      dependencies: [
        "SharedState",
        "SharedStateCommandLine",
        "SharedStatePostgres",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "IssueReporting", package: "xctest-dynamic-overlay"),
        .product(name: "OpenCombineShim", package: "OpenCombine"),
      ],
      path: "Tool"
    ),
    .executableTarget(
      name: "SharedDemo",
      dependencies: [
        "SharedDemoSuite",
        "SharedStateCommandLine",
        "SharedState",
        "SharedStatePostgres",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "IdentifiedCollections", package: "swift-identified-collections"),
        .product(name: "IssueReporting", package: "xctest-dynamic-overlay"),
        // `watch` prints each change from the value's publisher, on the thread that delivers it.
        .product(name: "OpenCombineShim", package: "OpenCombine"),
      ],
      path: "Demo"
    ),
    // A child program of the delivery tests: the shapes of program whose observers must get
    // other processes' changes where they live (async main with a main-actor model, a
    // synchronous main).
    .executableTarget(
      name: "DeliveryProbe",
      dependencies: [
        "SharedState",
        .product(name: "OpenCombineShim", package: "OpenCombine"),
      ],
      path: "Tests/DeliveryProbe"
    ),
    // A child program of the resource tests and benchmarks: many keys under a low descriptor
    // limit, the cost of opening many keys, the memory a watcher holds after a large value.
    .executableTarget(
      name: "ResourceProbe",
      dependencies: [
        "SharedState",
        .product(name: "OpenCombineShim", package: "OpenCombine"),
      ],
      path: "Tests/ResourceProbe"
    ),
    // glibc calls the tests use to start child processes (pipe2, closefrom in posix_spawn).
    .target(name: "CTestSupport", path: "Tests/CTestSupport"),
    // The child processes of both test targets, started and reaped in one place.
    .target(name: "TestSupport", dependencies: ["CTestSupport"], path: "Tests/TestSupport"),
    .testTarget(
      name: "SharedStateTests",
      dependencies: [
        "CTestSupport",
        "TestSupport",
        "SharedState",
        "SharedStatePostgres",
        // The multi-process tests run the tool as their worker processes.
        "SharedDemo",
        // The tests of the installed command run it, and read the JSON it shares with the demo.
        "SharedStateTool",
        "SharedStateCommandLine",
        "SharedDemoSuite",
        "DeliveryProbe",
        "ResourceProbe",
        .product(name: "CustomDump", package: "swift-custom-dump"),
        .product(name: "Dependencies", package: "swift-dependencies"),
        .product(name: "DependenciesTestSupport", package: "swift-dependencies"),
        .product(name: "IdentifiedCollections", package: "swift-identified-collections"),
        .product(name: "IssueReporting", package: "xctest-dynamic-overlay"),
        .product(name: "OpenCombineShim", package: "OpenCombine"),
      ]
    ),
    // The GLib tests' child process: a real GLib main loop with the bridge and the delivery,
    // reporting what arrives where on standard output; also the GTK latency benchmark's writer.
    .executableTarget(
      name: "SharedGLibProbe",
      dependencies: [
        "CGLib",
        "SharedDemoSuite",
        "SharedState",
        "SharedStateGLib",
        .product(name: "OpenCombineShim", package: "OpenCombine"),
      ],
      path: "Tests/SharedGLibProbe"
    ),
    .testTarget(
      name: "SharedStateGLibTests",
      dependencies: [
        "CGLib",
        "CTestSupport",
        "TestSupport",
        "SharedState",
        "SharedStateGLib",
        // Run as child processes: the GLib probe, the GTK demo under Xvfb, and `shared-demo set`.
        "SharedGLibProbe",
        "SharedDemoGTK",
        "SharedDemo",
        .product(name: "Dependencies", package: "swift-dependencies"),
        .product(name: "OpenCombineShim", package: "OpenCombine"),
      ]
    ),
    // The benchmark's baseline: the same counter transaction in plain postgres-nio.
    .executableTarget(
      name: "PostgresBaseline",
      dependencies: [.product(name: "PostgresNIO", package: "postgres-nio")],
      path: "Benchmarks/PostgresBaseline"
    ),
  ],
  swiftLanguageModes: [.v6]
)
