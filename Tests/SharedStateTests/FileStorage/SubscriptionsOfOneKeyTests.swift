import Dependencies
import DependenciesTestSupport
import Foundation
import SharedState
import Testing
import TestSupport

/// Subscriptions made directly through a key's `subscribe(context:subscriber:)`, as a custom key
/// that wraps a file storage key, or a test, makes them.
@Suite("File storage: subscriptions through one key", .dependency(\.defaultFileStorage, .fileSystem))
struct SubscriptionsOfOneKeyTests {
  @Test func aSubscriptionHearsAnotherProcesssWrite() async throws {
    let directory = try TemporaryDirectory()
    let file = directory.path("count.json")
    let key: FileStorageKey<Int> = .fileStorage(URL(fileURLWithPath: file))
    let (values, subscription) = Self.subscribe(to: key)
    defer { subscription.cancel() }
    #expect(try await DemoProcess("set", "--file", file, "41").waitForExit() == 0)
    #expect(try await values.next(seconds: 20, where: { $0 != nil }) == 41)
  }

  /// Each subscription after the first watches through a handle of its own: what one takes in
  /// is no news the other then misses (through one shared handle, only the first to deliver
  /// heard the change).
  @Test func twoSubscriptionsThroughOneKeyBothHearAnotherProcesssWrite() async throws {
    let directory = try TemporaryDirectory()
    let file = directory.path("count.json")
    let key: FileStorageKey<Int> = .fileStorage(URL(fileURLWithPath: file))
    let (first, firstSubscription) = Self.subscribe(to: key)
    let (second, secondSubscription) = Self.subscribe(to: key)
    defer {
      firstSubscription.cancel()
      secondSubscription.cancel()
    }
    #expect(try await DemoProcess("set", "--file", file, "41").waitForExit() == 0)
    #expect(try await first.next(seconds: 20, where: { $0 != nil }) == 41)
    #expect(try await second.next(seconds: 20, where: { $0 != nil }) == 41)
  }

  /// Subscribes to `key`: the values delivered (`nil`: the initial value), and the
  /// subscription. (A write made before the directory's watch is in place is caught up with
  /// once it is.)
  private static func subscribe(to key: FileStorageKey<Int>) -> (AsyncQueue<Int?>, SharedSubscription) {
    let (values, continuation) = AsyncStream<Int?>.makeStream()
    let subscription = key.subscribe(
      context: .userInitiated,
      subscriber: SharedSubscriber { result in
        if case let .success(value) = result { continuation.yield(value) }
      }
    )
    return (AsyncQueue(values), subscription)
  }
}
