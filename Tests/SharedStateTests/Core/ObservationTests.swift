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
}
