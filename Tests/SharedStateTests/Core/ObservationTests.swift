import ConcurrencyExtras
import Observation
import SharedState
import Testing

@Suite("Observation")
struct ObservationTests {
  /// Runs `read` under observation tracking and says whether `change` then fired the observer.
  private func changeIsObserved(read: () -> Void, change: () -> Void) -> Bool {
    let fired = LockIsolated(false)
    withObservationTracking(read) {
      fired.setValue(true)
    }
    change()
    return fired.value
  }

  @Test func withLockNotifiesObservers() {
    let count = Shared(value: 0)
    #expect(changeIsObserved(read: { _ = count.wrappedValue }, change: { count.withLock { $0 += 1 } }))
  }

  @Test func unchangedEquatableValueDoesNotNotify() {
    let count = Shared(value: 0)
    #expect(!changeIsObserved(read: { _ = count.wrappedValue }, change: { count.withLock { $0 = 0 } }))
  }

  @Test func changeFromElsewhereNotifiesObservers() {
    let backend = TestBackend<Int>(stored: 1)
    @Shared(TestKey(name: "observed", backend: backend)) var count = 0
    #expect(changeIsObserved(read: { _ = count }, change: { backend.writeFromElsewhere(2) }))
    #expect(count == 2)
  }

  @Test func readerAndDerivedStateAreObserved() {
    struct Settings { var volume = 5 }
    let settings = Shared(value: Settings())
    let reader = SharedReader(settings)
    let volume = settings.volume
    #expect(changeIsObserved(read: { _ = reader.wrappedValue }, change: { volume.withLock { $0 = 6 } }))
    #expect(changeIsObserved(read: { _ = volume.wrappedValue }, change: { settings.withLock { $0.volume = 7 } }))
  }

  @Test func loadingStateIsObserved() {
    let backend = TestBackend<Int>(stored: 3)
    backend.loadMode.setValue(.deferred)
    @Shared(TestKey(name: "loading", backend: backend)) var count = 0
    #expect($count.isLoading)
    #expect(changeIsObserved(read: { _ = $count.isLoading }, change: { backend.resumePendingLoads() }))
    #expect(!$count.isLoading)
    #expect(count == 3)
  }

  @Test func saveErrorIsObserved() {
    let backend = TestBackend<Int>(stored: 1)
    @Shared(TestKey(name: "saving", backend: backend)) var count = 0
    backend.saveFailure.setValue(TestError(message: "disk full"))
    #expect(changeIsObserved(read: { _ = $count.saveError }, change: { $count.withLock { $0 += 1 } }))
    #expect($count.saveError as? TestError == TestError(message: "disk full"))
  }

  @Test func loadErrorIsObserved() {
    let backend = TestBackend<Int>(stored: 1)
    @Shared(TestKey(name: "failing", backend: backend)) var count = 0
    #expect(changeIsObserved(read: { _ = $count.loadError }, change: { backend.failFromElsewhere(TestError()) }))
    #expect($count.loadError as? TestError == TestError())
  }

  /// Each observable property has a name of its own: a tracking of the value alone does not
  /// hear of an error, nor a tracking of the errors of a new value.
  @Test func eachPropertyIsObservedOnItsOwn() {
    let backend = TestBackend<Int>(stored: 1)
    @Shared(TestKey(name: "apart", backend: backend)) var count = 0
    // Read once each, so that a change of any of them is announced to Observation.
    _ = (count, $count.isLoading, $count.loadError, $count.saveError)
    #expect(!changeIsObserved(read: { _ = count }, change: { backend.failFromElsewhere(TestError()) }))
    #expect(!changeIsObserved(read: { _ = $count.saveError; _ = $count.isLoading }, change: { backend.writeFromElsewhere(2) }))
    #expect(count == 2)
  }
}
