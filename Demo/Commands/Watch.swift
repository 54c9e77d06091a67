import ArgumentParser
import Foundation
import OpenCombineShim
import SharedState
import SharedStateCommandLine
import Synchronization

/// `shared-demo watch`: prints the value and every change to it, as it happens.
struct Watch: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Print the value, then one line per change: '<unix-time-in-nanoseconds> <compact JSON>'.",
    discussion: """
      The first line is the value when watching starts. A file that stops decoding is reported \
      on standard error as '<unix-time-in-nanoseconds> error: <sentence>', and watching goes on. \
      Exits 0 after --changes changes, 1 when --timeout passes first, and 1 with one sentence on \
      standard error when changes cannot be watched (inotify's limits reached, say).
      """
  )

  @OptionGroup var storage: StorageOptions

  @Option(help: "Exit 0 after this many changes.")
  var changes: Int?

  @Option(help: "Exit 1 when this many seconds pass first.")
  var timeout: Double?

  @Flag(help: "When changes cannot be watched, say so on standard error and keep watching: watching resumes by itself when it can.")
  var keepGoing = false

  @Flag(help: "Read the value as an integer, the type 'increment' and 'ping' store, rather than as any JSON (0 when there is none).")
  var integer = false

  @Option(help: ArgumentHelp("Open this many descriptors first, as a program with many files open does.", visibility: .hidden))
  var openDescriptors = 0

  @Option(help: ArgumentHelp("With --suite: open this many other keys of the suite first ('open-0', 'open-1', ...), and report on standard error how long that took (wall and CPU time).", visibility: .hidden))
  var openKeys = 0

  @Option(help: ArgumentHelp("With --suite: also watch this key of the suite, with an observer that takes --slow-milliseconds over each change (a slow observer must not hold up others).", visibility: .hidden))
  var slowKey: String?

  @Option(help: ArgumentHelp("How long the observer of --slow-key takes over each change.", visibility: .hidden))
  var slowMilliseconds = 100

  func run() async throws {
    let held = try Self.openDescriptors(openDescriptors)
    defer { for descriptor in held { close(descriptor) } }
    let others = openOtherKeys()
    defer { withExtendedLifetime(others) {} }
    let slow = observeSlowly()
    defer { withExtendedLifetime(slow) {} }
    let outcome =
      if integer {
        await watch(Shared<Int>(wrappedValue: 0, storage.key()), printing: { String($0) })
      } else {
        await watch(Shared<JSONValue>(wrappedValue: .null, storage.jsonKey()), printing: { $0.compactJSON })
      }
    switch outcome {
    case .completed, .endless:
      break
    case .timedOut:
      Output.error("shared-demo: watching \(storage.description) timed out after \(timeout ?? 0) seconds.")
      throw ExitCode.failure
    case let .unwatched(reason):
      Output.error("shared-demo: changes to \(storage.description) cannot be watched: \(reason).")
      throw ExitCode.failure
    }
  }

  /// Prints the value and its changes (each as `printing` writes it) and its errors, until the
  /// change count is reached, the timeout passes, or the state cannot be watched.
  private func watch<Value: Sendable>(
    _ shared: Shared<Value>, printing text: @escaping @Sendable (Value) -> String
  ) async -> Outcome {
    await withTaskGroup(of: Outcome.self) { group in
      group.addTask { await printChanges(of: shared, printing: text) ? .completed : .endless }
      group.addTask { await printErrors(of: shared) }
      if let timeout {
        group.addTask {
          try? await Task.sleep(nanoseconds: UInt64(timeout * 1_000_000_000))
          return .timedOut
        }
      }
      // The first task to finish decides: the change count reached, the timeout, or a state
      // that cannot be watched.
      var outcome = Outcome.endless
      for await finished in group {
        outcome = finished
        break
      }
      group.cancelAll()
      return outcome
    }
  }

  /// Opens `openKeys` keys of the suite, as a program with many settings does, and says how
  /// long it took: '<count> keys opened in <milliseconds> ms'.
  private func openOtherKeys() -> [Shared<JSONValue>] {
    guard openKeys > 0, let suite = storage.suite else { return [] }
    let store = AppStorageSuite(directory: URL(fileURLWithPath: suite))
    let start = DispatchTime.now().uptimeNanoseconds
    let startCPU = Self.processCPUNanoseconds()
    let keys = (0..<openKeys).map { index in
      Shared<JSONValue>(wrappedValue: .null, AppStorageKey<JSONValue>.appStorage("open-\(index)", store: store))
    }
    let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
    // CPU time too: on a shared machine the wall time mostly says how busy the others are.
    let cpu = Double(Self.processCPUNanoseconds() - startCPU) / 1e6
    Output.error("\(openKeys) keys opened in \(String(format: "%.1f", elapsed)) ms (CPU \(String(format: "%.1f", cpu)) ms)")
    return keys
  }

  /// The CPU time of the whole process so far, in nanoseconds.
  private static func processCPUNanoseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now)
    return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
  }

  /// Opens `slowKey` with an observer that sleeps `slowMilliseconds` over each change after the
  /// first value.
  private func observeSlowly() -> AnyCancellable? {
    guard let slowKey, let suite = storage.suite else { return nil }
    let store = AppStorageSuite(directory: URL(fileURLWithPath: suite))
    let shared = Shared<JSONValue>(wrappedValue: .null, AppStorageKey<JSONValue>.appStorage(slowKey, store: store))
    let pause = UInt32(slowMilliseconds) * 1_000
    return shared.publisher.dropFirst().sink { _ in usleep(pause) }
  }

  /// Opens `count` descriptors on /dev/null, raising the soft limit on open files if needed.
  private static func openDescriptors(_ count: Int) throws -> [Int32] {
    guard count > 0 else { return [] }
    var limit = rlimit()
    getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    limit.rlim_cur = max(limit.rlim_cur, min(limit.rlim_max, rlim_t(count + 64)))
    setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    return try (0..<count).map { _ in
      let descriptor = open("/dev/null", O_RDONLY | O_CLOEXEC)
      guard descriptor >= 0 else { throw CommandError("Could not open \(count) descriptors: \(String(cString: strerror(errno)))") }
      return descriptor
    }
  }

  /// How watching ended.
  private enum Outcome: Sendable {
    case completed, endless, timedOut
    case unwatched(String)
  }

  /// Prints the value and its changes; returns `true` after `changes` changes.
  ///
  /// Each change is printed from the value's publisher, on the thread that delivers it, as a
  /// program that must react at once would do: no hop to another task first.
  private func printChanges<Value: Sendable>(
    of shared: Shared<Value>, printing text: @escaping @Sendable (Value) -> String
  ) async -> Bool {
    let (reached, reach) = AsyncStream<Void>.makeStream()
    let seen = Mutex(-1)
    let changes = self.changes
    let printing = shared.publisher.sink { value in
      Output.line(stampedAt: Output.unixNanoseconds(), text(value))
      let count = seen.withLock { seen in
        seen += 1
        return seen
      }
      if let changes, count >= changes { reach.yield() }
    }
    defer { printing.cancel() }
    for await _ in reached { return true }
    return false
  }

  /// Prints each new load error; finishes only when the state says it cannot be watched.
  private func printErrors<Value: Sendable>(of shared: Shared<Value>) async -> Outcome {
    let reason = await LoadErrors.follow(shared, of: storage.value, keepGoing: keepGoing) { message in
      Output.error("\(Output.unixNanoseconds()) error: \(message)")
    }
    return reason.map(Outcome.unwatched) ?? .endless
  }
}
