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

  /// Copies of a key share one handle on the file, and what the handle knows: the first
  /// subscription's delivery makes the change known, and the second then finds nothing new.
  /// (`@Shared` makes one subscription per key and registry, so it does not meet this.)
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
    // Whichever subscription delivers first makes the change known; each waits in turn (the
    // one that heard it returns at once).
    let heardByFirst = try? await first.next(seconds: 5, where: { $0 != nil })
    let heardBySecond = try? await second.next(seconds: 5, where: { $0 != nil })
    #expect(heardByFirst == 41 || heardBySecond == 41)
    withKnownIssue("two subscriptions through one key share its handle: only one hears a change") {
      #expect(heardByFirst == 41 && heardBySecond == 41)
    }
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
