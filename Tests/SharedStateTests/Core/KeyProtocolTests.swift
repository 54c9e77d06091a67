import ConcurrencyExtras
import IssueReporting
import SharedState
import Testing

@Suite("Key protocols: loading, saving, subscriptions and continuations")
struct KeyProtocolTests {
  @Test func loadsWhatTheKeyHasStored() {
    let backend = TestBackend<Int>(stored: 5)
    @Shared(TestKey(name: "stored", backend: backend)) var count = 0
    #expect(count == 5)
    #expect(!$count.isLoading)
  }

  @Test func keepsTheDefaultWhenNothingIsStored() {
    let backend = TestBackend<Int>()
    @Shared(TestKey(name: "empty", backend: backend)) var count = 8
    #expect(count == 8)
  }

  @Test func savesEachChange() {
    let backend = TestBackend<Int>()
    @Shared(TestKey(name: "saves", backend: backend)) var count = 0
    $count.withLock { $0 += 1 }
    $count.withLock { $0 += 1 }
    #expect(backend.savedValues.value == [1, 2])
  }

  @Test func asynchronousLoadShowsLoadingThenTheValue() {
    let backend = TestBackend<Int>(stored: 9)
    backend.loadMode.setValue(.deferred)
    @Shared(TestKey(name: "deferred", backend: backend)) var count = 0
    #expect($count.isLoading)
    #expect(count == 0)
    backend.resumePendingLoads()
    #expect(!$count.isLoading)
    #expect(count == 9)
  }

  @Test func loadErrorKeepsTheValueAndIsReported() {
    let backend = TestBackend<Int>(stored: 1)
    @Shared(TestKey(name: "load-error", backend: backend)) var count = 0
    backend.failFromElsewhere(TestError(message: "corrupt"))
    #expect(count == 1)
    #expect(($count.loadError as? TestError)?.message == "corrupt")
    backend.writeFromElsewhere(2)
    #expect(count == 2)
    #expect($count.loadError == nil, "the next good value clears the error")
  }

  @Test func saveErrorIsReportedAndClearedByTheNextSave() {
    let backend = TestBackend<Int>()
    @Shared(TestKey(name: "save-error", backend: backend)) var count = 0
    backend.saveFailure.setValue(TestError(message: "disk full"))
    $count.withLock { $0 = 1 }
    #expect(($count.saveError as? TestError)?.message == "disk full")
    backend.saveFailure.setValue(nil)
    $count.withLock { $0 = 2 }
    #expect($count.saveError == nil)
  }

  @Test func removalFromElsewhereReturnsToTheDefault() {
    let backend = TestBackend<Int>(stored: 4)
    @Shared(TestKey(name: "removal", backend: backend)) var count = 0
    #expect(count == 4)
    backend.writeFromElsewhere(nil)
    #expect(count == 0)
  }

  @Test func userInitiatedLoadAndSave() async throws {
    let backend = TestBackend<Int>(stored: 1)
    @Shared(TestKey(name: "on-demand", backend: backend)) var count = 0
    backend.stored.setValue(2)  // changed without telling subscribers
    #expect(count == 1)
    try await $count.load()
    #expect(count == 2)
    backend.stored.setValue(nil)
    try await $count.save()
    #expect(backend.stored.value == 2)

    backend.loadMode.setValue(.failing(TestError(message: "gone")))
    await #expect(throws: TestError(message: "gone")) { try await $count.load() }
    backend.saveFailure.setValue(TestError(message: "read-only"))
    await #expect(throws: TestError(message: "read-only")) { try await $count.save() }
  }

  @Test func requireThrowsWhenNothingIsStored() async throws {
    let backend = TestBackend<Int>()
    await #expect(throws: SharedValueNotFound.self) {
      _ = try await Shared(require: TestKey(name: "required", backend: backend))
    }
    backend.stored.setValue(3)
    let count = try await Shared(require: TestKey(name: "required", backend: backend))
    #expect(count.wrappedValue == 3)
    let reader = try await SharedReader(require: TestReaderKey(name: "required-reader", backend: backend))
    #expect(reader.wrappedValue == 3)
  }

  @Test func requirePassesOnTheLoadError() async {
    let backend = TestBackend<Int>()
    backend.loadMode.setValue(.failing(TestError(message: "unreadable")))
    await #expect(throws: TestError(message: "unreadable")) {
      _ = try await Shared(require: TestKey(name: "required-error", backend: backend))
    }
  }

  @Test func readerKeySeesChangesFromElsewhere() {
    let backend = TestBackend<String>(stored: "one")
    @SharedReader(TestReaderKey(name: "reader", backend: backend)) var text = ""
    #expect(text == "one")
    backend.writeFromElsewhere("two")
    #expect(text == "two")
  }

  @Test func subscriptionEndsWithTheLastReference() {
    let backend = TestBackend<Int>()
    do {
      @Shared(TestKey(name: "lifetime", backend: backend)) var first = 0
      @Shared(TestKey(name: "lifetime", backend: backend)) var second = 0
      #expect(backend.subscriberCount == 1, "one live reference per key id")
      _ = (first, second)
    }
    #expect(backend.subscriberCount == 0)
  }

  @Test func loadContinuationNeverResumedIsReported() {
    withKnownIssue {
      _ = LoadContinuation<Int>("a forgotten load") { _ in }
    }
  }

  @Test func loadContinuationResumedTwiceIsReported() {
    let results = LockIsolated<[Int?]>([])
    let continuation = LoadContinuation<Int>("a doubled load") { result in
      results.withValue { $0.append(try? result.get()) }
    }
    continuation.resume(returning: 1)
    withKnownIssue {
      continuation.resume(returning: 2)
    }
    #expect(results.value == [1], "the second resumption is ignored")
  }

  @Test func saveContinuationMisuseIsReported() {
    withKnownIssue {
      _ = SaveContinuation("a forgotten save") { _ in }
    }
    let continuation = SaveContinuation("a doubled save") { _ in }
    continuation.resume()
    withKnownIssue {
      continuation.resume(throwing: TestError())
    }
  }

  @Test func subscriptionCancelsOnce() {
    let cancellations = LockIsolated(0)
    do {
      let subscription = SharedSubscription { cancellations.withValue { $0 += 1 } }
      subscription.cancel()
      subscription.cancel()
    }
    #expect(cancellations.value == 1)
  }
}
