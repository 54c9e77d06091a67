import Dependencies
import DependenciesTestSupport
import Foundation
import SharedState
import Synchronization
import Testing

/// A delivery whose every read is overtaken: each time it decodes what another process wrote,
/// this process writes the key too (a `withLock` on another thread), then another process writes
/// again. The delivery must neither read the file nor run the key's decoder under the reference's
/// lock (which that `withLock` needs), and the reference must end holding what the file holds.
@Suite("File storage: a delivery overtaken by every read", .dependency(\.defaultFileStorage, .fileSystem))
struct OvertakenDeliveryTests {
  @Test func itNeverDecodesUnderTheReferencesLockAndEndsWithTheFilesValue() async throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("counter.json")
    try Data("0".utf8).write(to: URL(fileURLWithPath: path))
    let decoder = OvertakingDecoder(path: path)
    let counter = Shared(
      wrappedValue: 0,
      FileStorageKey<Int>(url: URL(fileURLWithPath: path), decode: { try decoder.decode($0) }, encode: { Data(String($0).utf8) })
    )
    decoder.counter.withLock { $0 = counter }
    // The decoder holds the state that holds the decoder: let go of it, or the state would live
    // on, watching, and make its file (and this test's directory) again once they are removed.
    defer { decoder.counter.withLock { $0 = nil } }
    // Another process's write starts the first delivery.
    try OvertakingDecoder.write(1, fromAnotherProcessTo: path)
    try await withTimeout(seconds: 60) {
      while decoder.state.withLock({ $0.overtakes }) < OvertakingDecoder.overtakes {
        try await Task.sleep(for: .milliseconds(10))
      }
    }
    // More overtakes than the reads of one delivery: the last ones came in a delivery of their
    // own, after the first one gave up.
    #expect(decoder.state.withLock { $0.writesHeldUp } == 0, "the decoder ran under the reference's lock")
    let last = OvertakingDecoder.foreignValue(OvertakingDecoder.overtakes)
    try await withTimeout(seconds: 20) {
      while counter.wrappedValue != last { try await Task.sleep(for: .milliseconds(10)) }
    }
    #expect(try String(contentsOfFile: path, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines) == String(last))
  }
}

/// The key's decoder: on a delivering thread, for its first ``overtakes`` calls, it has this
/// process write the key and waits for that write (which needs the reference's lock), then has
/// another process write the file.
private final class OvertakingDecoder: Sendable {
  /// How many reads it overtakes: more than one delivery makes (4).
  static let overtakes = 6

  let path: String
  let counter = Mutex<Shared<Int>?>(nil)
  let state = Mutex(State())

  struct State {
    var overtakes = 0
    /// Whether this process's write of the last overtake is under way.
    var isWriting = false
    /// Writes of this process's that did not finish while the decoder waited for them.
    var writesHeldUp = 0
  }

  init(path: String) {
    self.path = path
  }

  /// What the other process writes on the `round`th overtake (the rounds begin at 1).
  static func foreignValue(_ round: Int) -> Int { 1_000 * (round + 1) }

  func decode(_ data: Data) throws -> Int {
    let value = Int(String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    // Deliveries run on the library's threads (the first load, on the test's). The thread that
    // writes below takes the delivering thread's name: its transaction's refresh, which decodes
    // under the reference's lock as a transaction may, is told apart by `isWriting`.
    guard Thread.current.name == "SharedState", let counter = counter.withLock({ $0 }) else { return value }
    let round = state.withLock { state -> Int? in
      guard !state.isWriting, state.overtakes < Self.overtakes else { return nil }
      state.overtakes += 1
      state.isWriting = true
      return state.overtakes
    }
    guard let round else { return value }
    let written = DispatchSemaphore(value: 0)
    Thread.detachNewThread { [self] in
      counter.withLock { $0 += 1 }
      state.withLock { $0.isWriting = false }
      written.signal()
    }
    // Under the reference's lock, the write could not finish before this returns: the wait would
    // never end, so it has a deadline, and the write finishes once the decoder has returned.
    if written.wait(timeout: .now() + 5) == .timedOut {
      state.withLock { $0.writesHeldUp += 1 }
    }
    try Self.write(Self.foreignValue(round), fromAnotherProcessTo: path)
    return value
  }

  /// Writes `value` into the file at `path` with `shared-demo set`, a process of its own.
  static func write(_ value: Int, fromAnotherProcessTo path: String) throws {
    let process = Process()
    process.executableURL = DemoProcess.demoExecutable
    process.arguments = ["set", "--file", path, String(value)]
    process.standardOutput = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { throw CocoaError(.fileWriteUnknown) }
  }
}
