import Dependencies
import DependenciesTestSupport
import Foundation
import SharedState
import Testing

/// Invariant 10: a process's observers run after the cross-process lock and the reference's lock
/// are released, and after the value is committed. Real processes (`shared-demo increment` with
/// an observer of its own) on file storage and on app storage. Serialized: the slow-observer
/// test times an increment, and the deadlock test's processes would otherwise share the cores.
/// `scripts/test.sh` runs the slow-observer test in a pass of its own, after the others.
@Suite(
  "Observers run outside every lock", .serialized, .dependency(\.defaultFileStorage, .fileSystem)
)
struct ObserversOutsideLocksTests {
  /// Where the processes keep their counters.
  enum Storage: String, CaseIterable, CustomTestStringConvertible {
    case file, appStorage

    var testDescription: String { rawValue }

    /// The `shared-demo` arguments for the counter `name`.
    func arguments(_ directory: TemporaryDirectory, _ name: String) -> [String] {
      switch self {
      case .file: ["--file", directory.path("\(name).json")]
      case .appStorage: ["--suite", directory.url.path, "--key", name]
      }
    }

    /// What `--observer-target` takes for the counter `name`.
    func target(_ directory: TemporaryDirectory, _ name: String) -> String {
      switch self {
      case .file: directory.path("\(name).json")
      case .appStorage: name
      }
    }

    /// The counter `name` in this process.
    func open(_ directory: TemporaryDirectory, _ name: String) -> Shared<Int> {
      switch self {
      case .file:
        Shared(wrappedValue: 0, .fileStorage(URL(fileURLWithPath: directory.path("\(name).json"))))
      case .appStorage:
        Shared(wrappedValue: 0, .appStorage(name, store: AppStorageSuite(directory: directory.url)))
      }
    }
  }

  @Test(arguments: Storage.allCases)
  func aSlowObserverInOneProcessHoldsUpNoOtherProcess(storage: Storage) async throws {
    let directory = try TemporaryDirectory()
    // Opened first, so that what is timed is the cross-process increment alone, not the
    // registration of a new directory with this process's watcher.
    let counter = storage.open(directory, "counter")
    let slow = try DemoProcess(
      executable: DemoProcess.demoExecutable, arguments: ["increment"] + storage.arguments(directory, "counter")
        + ["--observer-sleep-milliseconds", "2000"]
    )
    // The other process has committed 1 and its observer is asleep for 2 s from now.
    #expect(try await slow.nextLine() == "observer sleeping 1")
    let started = ContinuousClock.now
    counter.withLock { $0 += 1 }
    let took = ContinuousClock.now - started
    #expect(took < .milliseconds(100), "waited \(took) for the other process's observer")
    #expect(counter.wrappedValue == 2)
    #expect(counter.saveError == nil)
    // Its observer may also hear of this process's 2 before it exits.
    let rest = try await slow.allOutput()
    #expect(rest.contains("ok 1"))
    #expect(Set(rest).isSubset(of: ["ok 1", "observer sleeping 2"]), "\(rest)")
    #expect(try await slow.waitForExit() == 0)
  }

  @Test(arguments: Storage.allCases)
  func processesWhoseObserversWriteEachOthersKeysNeverDeadlock(storage: Storage) async throws {
    for _ in 0..<10 {
      let directory = try TemporaryDirectory()
      let start = String(UInt64(Date().timeIntervalSince1970 * 1e9) + 300_000_000)
      // Each increments its own counter 300 times; on every change of it, its observer takes
      // the other counter in a withLock, and adds 1000 to it once.
      let pairs = [("x", "y"), ("y", "x")]
      let workers = try pairs.map { own, other in
        try DemoProcess(
          executable: DemoProcess.demoExecutable, arguments: ["increment"] + storage.arguments(directory, own)
            + ["--times", "300", "--start-at", start]
            + ["--observer-target", storage.target(directory, other), "--observer-adds", "1000"]
        )
      }
      var errors: [String] = []
      for worker in workers {
        #expect(try await worker.allOutput(seconds: 60) == ["ok 300"])
        errors += try await worker.allErrors()
      }
      #expect(storage.open(directory, "x").wrappedValue == 1300, "\(errors)")
      #expect(storage.open(directory, "y").wrappedValue == 1300, "\(errors)")
    }
  }

  @Test(arguments: Storage.allCases)
  func anObserverThatWritesItsOwnKeyLosesNoWrite(storage: Storage) async throws {
    let directory = try TemporaryDirectory()
    // Its observer's write is the process's last: it must reach the disk, not be overwritten
    // by the write that prompted it.
    let alone = try DemoProcess(
      executable: DemoProcess.demoExecutable, arguments: ["increment"] + storage.arguments(directory, "alone")
        + ["--observer-target", storage.target(directory, "alone"), "--observer-adds", "1000"]
        + ["--observer-threshold", "1"]
    )
    #expect(try await alone.allOutput() == ["ok 1"])
    #expect(storage.open(directory, "alone").wrappedValue == 1001)

    let start = String(UInt64(Date().timeIntervalSince1970 * 1e9) + 300_000_000)
    // Two processes increment one counter 300 times each; each one's observer of the counter
    // adds 1000 to that same counter once.
    let workers = try (0..<2).map { _ in
      try DemoProcess(
        executable: DemoProcess.demoExecutable, arguments: ["increment"] + storage.arguments(directory, "counter")
          + ["--times", "300", "--start-at", start]
          + ["--observer-target", storage.target(directory, "counter"), "--observer-adds", "1000"]
      )
    }
    var errors: [String] = []
    for worker in workers {
      #expect(try await worker.allOutput(seconds: 60) == ["ok 300"])
      errors += try await worker.allErrors()
    }
    #expect(storage.open(directory, "counter").wrappedValue == 2600, "\(errors)")
  }
}
