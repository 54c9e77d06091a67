import ConcurrencyExtras
import Dispatch
import Foundation
import SharedState
import Testing

/// The asynchronous API runs on the caller's actor, as swift-sharing's does: a key's `load` is
/// asked on the caller's actor, before the call first suspends, not whenever a thread of the
/// global pool gets to it (upstream's `isLoadingInitRequire` hung when that was too late).
@Suite("Asynchronous API on the caller's actor")
@MainActor
struct CallerIsolationTests {
  /// Marks the main queue, which runs the main actor.
  nonisolated private static let onMainQueue: DispatchSpecificKey<Bool> = {
    let key = DispatchSpecificKey<Bool>()
    DispatchQueue.main.setSpecific(key: key, value: true)
    return key
  }()

  /// A key that answers 42 at once, and records whether it was asked on the main queue.
  private struct RecordingKey: SharedKey {
    let id = UUID()
    let askedOnMainQueue = LockIsolated<[Bool]>([])
    func load(context: LoadContext<Int>, continuation: LoadContinuation<Int>) {
      askedOnMainQueue.withValue { $0.append(DispatchQueue.getSpecific(key: CallerIsolationTests.onMainQueue) == true) }
      continuation.resume(returning: 42)
    }
    func subscribe(context: LoadContext<Int>, subscriber: SharedSubscriber<Int>) -> SharedSubscription {
      SharedSubscription {}
    }
    func save(_ value: Int, context: SaveContext, continuation: SaveContinuation) {
      continuation.resume()
    }
  }

  @Test func requireAndLoadAskTheKeyOnTheCallersActor() async throws {
    _ = Self.onMainQueue
    let readerKey = RecordingKey()
    let reader = try await SharedReader(require: readerKey)
    #expect(reader.wrappedValue == 42)
    try await reader.load()
    #expect(readerKey.askedOnMainQueue.value == [true, true])

    let sharedKey = RecordingKey()
    let shared = try await Shared(require: sharedKey)
    try await shared.load()
    #expect(sharedKey.askedOnMainQueue.value == [true, true])

    let other = RecordingKey()
    try await shared.load(other)
    #expect(other.askedOnMainQueue.value.last == true)
  }
}
