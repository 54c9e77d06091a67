import ConcurrencyExtras
import Dependencies
import Foundation
import IssueReporting
import OpenCombineShim
@testable import SharedState
import Testing

/// The `UserDefaults` names that write and read a suite untyped: they never throw.
@Suite("AppStorageSuite's UserDefaults writing names")
struct UserDefaultsWritingTests {
  @Dependency(\.defaultAppStorage) var suite

  @Test func setStoresWithoutTryAndReachesSharedStateAtOnce() throws {
    @Shared(.appStorage("count")) var count = 0
    suite.set(3, forKey: "count")
    #expect(count == 3)
    #expect(try suite.value(forKey: "count", as: Int.self) == 3)
    suite.set(Int?.none, forKey: "count")
    #expect(count == 0)
    #expect(try suite.value(forKey: "count", as: Int.self) == nil, "nil removes the file")
  }

  @Test func setReachesPublisherSinksBeforeItReturns() throws {
    // Not a change from another process: the sink hears of it on this thread, whatever
    // `SharedChangeDelivery.default` says (the main actor, here, which this test is not on).
    @Shared(.appStorage("count")) var count = 0
    let values = LockIsolated<[Int]>([])
    let cancellable = $count.publisher.sink { value in values.withValue { $0.append(value) } }
    defer { cancellable.cancel() }
    #expect(values.value == [0])
    suite.set(5, forKey: "count")
    #expect(values.value == [0, 5])
    suite.removeObject(forKey: "count")
    #expect(values.value == [0, 5, 0])
  }

  /// The suite writes through a handle of its own, so its write is both delivered on this
  /// thread (observers hear of it before `set` returns) and seen by the watch: each write must
  /// be heard once, whichever comes first (swift-sharing's `testPersistenceKeySubscription`).
  @Test func aSubscriberHearsEachSetOnce() throws {
    let key: AppStorageKey<Int> = .appStorage("shared")
    let heard = LockIsolated<[Int?]>([])
    let subscription = key.subscribe(
      context: .userInitiated,
      subscriber: SharedSubscriber { result in heard.withValue { $0.append(try? result.get()) } }
    )
    suite.set(1, forKey: "shared")
    suite.set(42, forKey: "shared")
    subscription.cancel()
    suite.set(123, forKey: "shared")
    #expect(heard.value == [1, 42])
  }

  /// A subscription cancelled while a suite write it heard begin is under way ends its part of
  /// that write: the key's handle, which copies of the key share, holds the watch's deliveries
  /// back during a suite write, and must not go on holding them for a subscription that will not
  /// hear the write end. A later subscription through a copy of the key then hears another
  /// process's write.
  @Test func aSubscriptionCancelledDuringASetLeavesTheKeyDelivering() async throws {
    let key: AppStorageKey<Int> = .appStorage("shared")
    let first = LockIsolated<SharedSubscription?>(nil)
    first.setValue(key.subscribe(context: .userInitiated, subscriber: SharedSubscriber { _ in }))
    // The suite encodes the value between telling the key's subscriptions that its write begins
    // and that it is over: the first subscription is cancelled there.
    suite.set(EncodingHook(rawValue: 1) { first.value?.cancel() }, forKey: "shared")

    let copy = key
    let (heard, hear) = AsyncStream<Int?>.makeStream()
    let second = copy.subscribe(
      context: .userInitiated,
      subscriber: SharedSubscriber { result in hear.yield(try? result.get()) }
    )
    defer { second.cancel() }
    try await waitUntilWatched(suite.directory.appendingPathComponent("shared.json").path)
    #expect(try await DemoProcess("set", "--suite", suite.directory.path, "--key", "shared", "5").waitForExit() == 0)
    #expect(try await AsyncQueue(heard).next(where: { $0 == 5 }) == 5, "the other process's write is heard")
  }

  /// A catch-up (a subscription starting after its key was loaded, the watch's
  /// resynchronization once events were lost or a directory newly watched) that comes while a
  /// suite write of this process is under way is left to that write, as the watch's deliveries
  /// are: made at once, it delivered the write as a change from elsewhere, and the write's own
  /// delivery then delivered it a second time (seen under load as
  /// ``aSubscriberHearsEachSetOnce()`` hearing 42 twice, the watch's first resynchronization
  /// arriving during the second set).
  ///
  /// A handle's catch-up while a write it heard begin is under way happens when the watch
  /// resynchronizes; here a second subscription on the same handle makes it, on the test's
  /// thread (each subscription after the first through a key gets a handle of its own, so this
  /// one is made directly), while the first, which heard the write begin as a `@Shared` of the
  /// key does, makes the write's own delivery: together they must hear the write once.
  @Test func aCatchUpDuringASetIsLeftToTheSet() async throws {
    suite.set(1, forKey: "shared")
    let path = suite.directory.appendingPathComponent("shared.json").path
    // The suite's file, as its key reads it.
    let key = withDependencies {
      $0.defaultFileStorage = suite.storage
    } operation: {
      FileStorageKey<Int>.fileStorage(URL(fileURLWithPath: path))
    }
    let heard = LockIsolated<[Int?]>([])
    let subscriber = SharedSubscriber<Int> { result in heard.withValue { $0.append(try? result.get()) } }
    let first = key.startSubscription(subscriber)
    defer { first.cancel() }
    key.load(context: .userInitiated, continuation: LoadContinuation { _ in })

    // A suite write, step by step: it begins (as the suite tells the subscriptions of its key);
    // its bytes land (written by another process, so that the handle learns of them only by
    // reading); a catch-up of the same handle comes while the write is under way; the write ends.
    first.ownWriteBegins()
    #expect(try await DemoProcess("set", "--suite", suite.directory.path, "--key", "shared", "42").waitForExit() == 0)
    let catchingUp = FileKeySubscription(key: key, subscriber: subscriber, keepingPlaceholder: false)
    catchingUp.start(catchingUp: true)
    defer { catchingUp.cancel() }
    #expect(heard.value == [], "the catch-up is left to the write under way")
    first.ownWriteEnds(wrote: true)
    #expect(heard.value == [42], "the write is heard once, from its own delivery")
  }

  /// A subscription that starts while a suite write is under way, through another instance of
  /// the key (a `@Shared` made on another thread meanwhile: its own handle, which holds nothing
  /// back, and its own listener, which hears the write end but not begin), hears the write once:
  /// its catch-up found it, and the write's own delivery, made for the subscriptions that heard
  /// it begin, must not deliver it again. Everything runs on the test's thread.
  @Test func aSubscriptionStartedDuringASetThroughAnotherKeyHearsItOnce() async throws {
    let key: AppStorageKey<Int> = .appStorage("shared")
    suite.set(1, forKey: "shared")
    let path = suite.directory.appendingPathComponent("shared.json").path
    let first = key.subscribe(context: .userInitiated, subscriber: SharedSubscriber { _ in })
    defer { first.cancel() }
    // The other instance is loaded before the write (it reads 1), and subscribes during it.
    let other: AppStorageKey<Int> = .appStorage("shared")
    other.load(context: .userInitiated, continuation: LoadContinuation { _ in })

    AppStorageLocalWrites.shared.tell(.begins, storage: suite.storage, path: path)
    #expect(try await DemoProcess("set", "--suite", suite.directory.path, "--key", "shared", "42").waitForExit() == 0)
    let heard = LockIsolated<[Int?]>([])
    let second = other.subscribe(
      context: .userInitiated,
      subscriber: SharedSubscriber { result in heard.withValue { $0.append(try? result.get()) } }
    )
    defer { second.cancel() }
    #expect(heard.value == [42], "its catch-up found the write")
    AppStorageLocalWrites.shared.tell(.ends(wrote: true), storage: suite.storage, path: path)
    #expect(heard.value == [42], "the write's own delivery is for the subscriptions that heard it begin")
  }

  @Test func setReportsAFailureInsteadOfThrowing() throws {
    let tooLong = String(repeating: "x", count: 10_000)
    withKnownIssue {
      suite.set(1, forKey: tooLong)
    } matching: { issue in
      (issue.error as? AppStorageError)?.reason == .keyNameTooLong
    }
    withKnownIssue {
      suite.removeObject(forKey: tooLong)
    } matching: { issue in
      (issue.error as? AppStorageError)?.reason == .keyNameTooLong
    }
    #expect(throws: AppStorageError.self) { try suite.write(1, forKey: tooLong) }
  }

  @Test func objectIsTheStoredJSONValue() throws {
    #expect(suite.object(forKey: "missing") == nil)
    try suite.write(42, forKey: "count")
    try suite.write("Blob", forKey: "name")
    try suite.write(["a", "b"], forKey: "names")
    #expect(suite.object(forKey: "count") as? Int == 42)
    #expect(suite.value(forKey: "name") as? String == "Blob")
    #expect(suite.object(forKey: "names") as? [String] == ["a", "b"])
  }

  @Test func keyNamesThatKeyValueObservingDislikesWorkWithoutAWarning() {
    // Any issue reported here fails the test: there must be no warning to silence.
    @Shared(.appStorage("co.pointfree.isEnabled")) var isEnabled = false
    @Shared(.appStorage("@count")) var count = 0
    suite.set(true, forKey: "co.pointfree.isEnabled")
    suite.set(42, forKey: "@count")
    #expect(isEnabled)
    #expect(count == 42)
    withDependencies {
      $0.appStorageKeyFormatWarningEnabled = false
    } operation: {
      @Shared(.appStorage("@count")) var same = 0
      #expect(same == 42)
    }
  }
}

/// A raw value that runs `onEncode` each time it is read: the suite reads it while it encodes.
private struct EncodingHook: RawRepresentable, Sendable {
  let value: Int
  let onEncode: @Sendable () -> Void

  init(rawValue: Int, onEncode: @escaping @Sendable () -> Void) {
    value = rawValue
    self.onEncode = onEncode
  }

  init?(rawValue: Int) {
    self.init(rawValue: rawValue) {}
  }

  var rawValue: Int {
    onEncode()
    return value
  }
}
