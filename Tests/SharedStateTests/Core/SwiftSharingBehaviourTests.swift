import ConcurrencyExtras
import CustomDump
import Dependencies
import Foundation
import IdentifiedCollections
import SharedState
import Testing

/// Behaviour that code written for swift-sharing relies on, kept the same here.
@Suite("Behaviour shared with swift-sharing")
struct SwiftSharingBehaviourTests {
  @Test func optionalInMemoryValuesKeepTheirDefault() async {
    @Shared(.inMemory("count")) var count: Int? = 0
    #expect(count == 0)
    @Shared(.inMemory("doubly")) var doubly: Int?? = .some(nil)
    #expect(doubly == .some(nil))
    await #expect(throws: SharedValueNotFound.self) {
      _ = try await Shared<Int?>(require: .inMemory("missing"))
    }
  }

  @Test func aLoadContinuationNeverResumedIsReportedAndDoesNotHang() async throws {
    var made: SharedReader<Int>?
    withKnownIssue("the first load's continuation is dropped too") {
      made = SharedReader(wrappedValue: 7, ForgetfulKey())
    }
    @SharedReader var value: Int
    _value = try #require(made)
    #expect(!$value.isLoading)
    try await withKnownIssue {
      try await $value.load()
    } matching: { issue in
      issue.description.hasSuffix(
        "'ForgetfulKey()' leaked its continuation without one of its resume methods being "
          + "invoked. This will cause tasks waiting on it to resume immediately."
      )
    }
    #expect(!$value.isLoading)
    #expect(value == 7)
  }

  @Test func aSaveContinuationNeverResumedIsReportedAndDoesNotHang() async throws {
    var made: Shared<Int>?
    withKnownIssue("the first load's continuation is dropped too") {
      made = Shared(wrappedValue: 7, ForgetfulKey())
    }
    let value = try #require(made)
    await withKnownIssue {
      try await value.save()
    }
  }

  @Test func aValueFromTheSubscriptionEndsLoading() {
    let key = YieldingKey()
    @SharedReader(key) var value = 0
    #expect($value.isLoading)
    key.subscriber.value?.yield(42)
    #expect(!$value.isLoading)
    #expect(value == 42)
  }

  @Test func twoKeyTypesWithEqualIdsAreTwoStates() {
    @Shared(KeyWithIdZero<Bool>()) var first = 1
    @Shared(KeyWithIdZero<String>()) var second = 2
    #expect(first == 1)
    #expect(second == 2)
  }

  @Test func assigningTheProjectionRepointsEarlierCopies() {
    @Shared(.inMemory("count")) var count = 0
    let copy = $count
    $count = Shared(wrappedValue: 42, .inMemory("anotherCount"))
    #expect(copy.wrappedValue == 42)
    copy.withLock { $0 += 1 }
    #expect(count == 43)
  }

  @Test func anElementThatLeftItsCollectionKeepsItsWrites() throws {
    @Shared(value: IdentifiedArray(uniqueElements: [1, 2, 3], id: \.self)) var counts
    let third = try #require($counts[id: 3])
    $counts.withLock { _ = $0.removeLast() }
    third.withLock { $0 += 1 }
    #expect(third.wrappedValue == 4)
    #expect(counts == IdentifiedArray(uniqueElements: [1, 2], id: \.self))
  }

  @Test func describesItselfAsSwiftSharingDoes() {
    @Shared(value: 0) var count
    #expect($count.description == "Shared<Int>(value: 0)")
    #expect(SharedReader($count).description == "SharedReader<Int>(value: 0)")
    @Shared(.inMemory("count")) var stored = 0
    #expect($stored.description == #"Shared<Int>(.inMemory("count"))"#)
    @Shared(.appStorage("count")) var setting = 0
    #expect($setting.description == #"Shared<Int>(.appStorage("count"))"#)
  }

  @Test func dumpsTheValueAndWhichValuesAreShared() {
    @Shared(value: 0) var count
    @Shared(value: 0) var other
    // No locks or registrars in the dump; the second mention of one state points back to the
    // first. (swift-custom-dump 1.7.3 numbers objects from 0 and leaves "#0" out.)
    #expect(String(customDumping: $count) == "0")
    #expect(
      String(customDumping: [$count, $other, $count]) == """
        [
          [0]: 0,
          [1]: #1 0,
          [2]: Int(↩︎)
        ]
        """
    )
  }

  @Test func readDerivesAReader() {
    @Shared(value: 0) var count
    let isZero = $count.read { $0 == 0 }
    #expect(isZero.wrappedValue)
    $count.withLock { $0 += 1 }
    #expect(!isZero.wrappedValue)
  }

  @Test func loadPointsAtAnotherKey() async throws {
    @Shared(.inMemory("first")) var value = 1
    @Shared(.inMemory("second")) var second = 2
    let copy = $value
    try await $value.load(.inMemory("second"))
    #expect(copy.wrappedValue == 2)
    _ = second
  }

  @Test func theSuitesOwnWritesReachSharedStateAtOnce() throws {
    @Dependency(\.defaultAppStorage) var suite
    @Shared(.appStorage("count")) var count = 0
    try suite.write(3, forKey: "count")
    #expect(count == 3, "no wait for the directory watcher")
    try suite.removeValue(forKey: "count")
    #expect(count == 0)
  }

  @Test func anEmptyFileHoldsNoValue() throws {
    let directory = try TemporaryDirectory()
    let url = directory.url.appendingPathComponent("count.json")
    try Data().write(to: url)
    withDependencies {
      $0.defaultFileStorage = .fileSystem
    } operation: {
      @Shared(.fileStorage(url)) var count = 3
      #expect(count == 3)
      #expect($count.loadError == nil)
    }
  }
}

/// A key that never resumes its continuations.
private struct ForgetfulKey: SharedKey {
  var id: some Hashable { 0 }
  func load(context: LoadContext<Int>, continuation: LoadContinuation<Int>) {}
  func subscribe(context: LoadContext<Int>, subscriber: SharedSubscriber<Int>) -> SharedSubscription {
    .empty
  }
  func save(_ value: Int, context: SaveContext, continuation: SaveContinuation) {}
}

/// Key types whose ids are all `0`: one type for each `Tag`.
private struct KeyWithIdZero<Tag>: SharedKey {
  var id: some Hashable { 0 }
  func load(context: LoadContext<Int>, continuation: LoadContinuation<Int>) {
    continuation.resumeReturningInitialValue()
  }
  func subscribe(context: LoadContext<Int>, subscriber: SharedSubscriber<Int>) -> SharedSubscription {
    .empty
  }
  func save(_ value: Int, context: SaveContext, continuation: SaveContinuation) {
    continuation.resume()
  }
}

/// A key whose subscription announces loading and hands its subscriber to the test.
private final class YieldingKey: SharedReaderKey, Sendable {
  let subscriber = LockIsolated<SharedSubscriber<Int>?>(nil)
  var id: ObjectIdentifier { ObjectIdentifier(self) }
  func load(context: LoadContext<Int>, continuation: LoadContinuation<Int>) {
    continuation.resumeReturningInitialValue()
  }
  func subscribe(context: LoadContext<Int>, subscriber: SharedSubscriber<Int>) -> SharedSubscription {
    subscriber.yieldLoading()
    self.subscriber.setValue(subscriber)
    return .empty
  }
}

/// The seeds' code, as the isowords episode and the 1.10 article write it.
@Suite("The Composable Architecture 1.10's spelling")
struct SeedSpellingTests {
  struct SavedGames: Codable, Equatable, Sendable {
    var count = 0
  }

  @available(*, deprecated)
  @Test func persistenceKeyDefaultWithAKeyAndAValue() {
    withDependencies {
      $0.defaultFileStorage = .inMemory
    } operation: {
      @Shared(.hasShownOnboarding) var hasShownOnboarding
      @Shared(.savedGames) var savedGames
      #expect(hasShownOnboarding == false)
      #expect(savedGames == SavedGames())
      $hasShownOnboarding.withLock { $0 = true }
      @Shared(.hasShownOnboarding) var again
      #expect(again)
    }
  }

  @Test func documentsDirectoryFollowsXDG() {
    let documents = URL.documentsDirectory.path
    if let configured = ProcessInfo.processInfo.environment["XDG_DOCUMENTS_DIR"], configured.hasPrefix("/") {
      #expect(documents == configured)
    } else {
      #expect(documents.hasSuffix("/Documents"))
    }
  }
}

@available(*, deprecated)
extension PersistenceReaderKey where Self == PersistenceKeyDefault<AppStorageKey<Bool>> {
  fileprivate static var hasShownOnboarding: Self {
    PersistenceKeyDefault(.appStorage("hasShownFirstLaunchOnboardingKey"), false)
  }
}

@available(*, deprecated)
extension PersistenceReaderKey
where Self == PersistenceKeyDefault<FileStorageKey<SeedSpellingTests.SavedGames>> {
  fileprivate static var savedGames: Self {
    PersistenceKeyDefault(
      .fileStorage(.documentsDirectory.appending(path: "saved-games.json")),
      SeedSpellingTests.SavedGames()
    )
  }
}

@Suite("AppStorageSuite's UserDefaults names")
struct AppStorageSuiteUserDefaultsNamesTests {
  @Test func readWithUserDefaultsFallbacks() throws {
    let suite = AppStorageSuite.temporary()
    #expect(suite.bool(forKey: "missing") == false)
    #expect(suite.integer(forKey: "missing") == 0)
    #expect(suite.double(forKey: "missing") == 0)
    #expect(suite.string(forKey: "missing") == nil)
    #expect(suite.url(forKey: "missing") == nil)
    try suite.write(true, forKey: "flag")
    try suite.write(42, forKey: "count")
    try suite.write(1.5, forKey: "ratio")
    try suite.write("Blob", forKey: "name")
    try suite.write(["a", "b"], forKey: "names")
    try suite.write(URL(fileURLWithPath: "/dev"), forKey: "place")
    try suite.write(Data([4, 2]), forKey: "bytes")
    #expect(suite.bool(forKey: "flag"))
    #expect(suite.integer(forKey: "count") == 42)
    #expect(suite.integer(forKey: "ratio") == 1)
    #expect(suite.double(forKey: "ratio") == 1.5)
    #expect(suite.string(forKey: "name") == "Blob")
    #expect(suite.string(forKey: "count") == "42")
    #expect(suite.stringArray(forKey: "names") == ["a", "b"])
    #expect(suite.url(forKey: "place") == URL(fileURLWithPath: "/dev"))
    #expect(suite.data(forKey: "bytes") == Data([4, 2]))
    suite.removeObject(forKey: "count")
    #expect(suite.integer(forKey: "count") == 0)
  }
}

@Suite("app storage named by a UserDefaults store")
struct AppStorageUserDefaultsStoreTests {
  @Test func aSuiteNameThatIsAPathIsThatDirectory() throws {
    let directory = try TemporaryDirectory()
    let store = try #require(UserDefaults(suiteName: directory.url.path))
    @Shared(.appStorage("count", store: store)) var count = 0
    $count.withLock { $0 = 7 }
    let suite = AppStorageSuite(directory: directory.url)
    #expect(try suite.value(forKey: "count", as: Int.self) == 7)
  }

  @Test func theStandardStoreIsTheDefaultSuite() throws {
    @Dependency(\.defaultAppStorage) var suite
    @Shared(.appStorage("count", store: .standard)) var count = 0
    $count.withLock { $0 = 3 }
    #expect(try suite.value(forKey: "count", as: Int.self) == 3)
  }
}
