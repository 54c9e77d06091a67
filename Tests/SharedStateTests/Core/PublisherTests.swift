import ConcurrencyExtras
import Dependencies
import OpenCombineShim
import SharedState
import Testing

@Suite("Combine publisher of shared state")
struct PublisherTests {
  @Test func publishesTheCurrentValueThenEachChange() {
    @Shared(value: 0) var count
    let received = LockIsolated<[Int]>([])
    let cancellable = $count.publisher.sink { value in received.withValue { $0.append(value) } }
    $count.withLock { $0 += 1 }
    $count.withLock { $0 += 1 }
    #expect(received.value == [0, 1, 2])
    cancellable.cancel()
    $count.withLock { $0 += 1 }
    #expect(received.value == [0, 1, 2], "nothing after cancelling")
  }

  @Test func followsTheSharedWhenItIsRepointed() {
    @Shared(.inMemory("first")) var value = 1
    let received = LockIsolated<[Int]>([])
    let cancellable = $value.publisher.sink { value in received.withValue { $0.append(value) } }
    defer { cancellable.cancel() }
    $value = Shared(wrappedValue: 10, .inMemory("second"))
    $value.withLock { $0 += 1 }
    #expect(received.value == [1, 10, 11])
  }

  @Test func aSubscriberThatRepointsWhileReceivingGetsTheNewStatesValue() {
    @Shared(.inMemory("first")) var value = 1
    let shared = $value
    let received = LockIsolated<[Int]>([])
    let cancellable = $value.publisher.sink { value in
      received.withValue { $0.append(value) }
      // The new state's value is handed over at once, on this thread, inside this receive.
      if value == 2 { shared.projectedValue = Shared(wrappedValue: 10, .inMemory("second")) }
    }
    defer { cancellable.cancel() }
    $value.withLock { $0 = 2 }
    #expect(received.value == [1, 2, 10])
    $value.withLock { $0 += 1 }
    #expect(received.value == [1, 2, 10, 11])
  }

  @Test func aDerivedSharedKeepsPublishing() {
    struct Wrapper { var count = 0 }
    @Shared(value: Wrapper()) var wrapper
    let received = LockIsolated<[Int]>([])
    let cancellable = $wrapper.count.publisher.sink { value in received.withValue { $0.append(value) } }
    defer { cancellable.cancel() }
    $wrapper.withLock { $0.count = 5 }
    #expect(received.value == [0, 5])
  }

  @Test func loadingAKeyWithNothingStoredSendsNothingNew() async throws {
    @Shared(.inMemory("first")) var value = 1
    let received = LockIsolated<[Int]>([])
    let cancellable = $value.publisher.sink { value in received.withValue { $0.append(value) } }
    defer { cancellable.cancel() }
    try await $value.load(.inMemory("nothing here"))
    #expect(value == 1)
    #expect(received.value == [1], "the carried-over value is not a change")
    $value.withLock { $0 = 2 }
    #expect(received.value == [1, 2])
  }

  @Test func loadingAKeyWithStateSendsItsValue() async throws {
    @Shared(.inMemory("first")) var value = 1
    @Shared(.inMemory("second")) var second = 20
    let received = LockIsolated<[Int]>([])
    let cancellable = $value.publisher.sink { value in received.withValue { $0.append(value) } }
    defer { cancellable.cancel() }
    try await $value.load(.inMemory("second"))
    #expect(received.value == [1, 20])
    _ = second
  }

  @Test func loadingAKeyWithAStoredValueSendsItOnce() async throws {
    @Dependency(\.defaultAppStorage) var suite
    @Shared(.appStorage("first")) var value = 1
    let received = LockIsolated<[Int]>([])
    let cancellable = $value.publisher.sink { value in received.withValue { $0.append(value) } }
    defer { cancellable.cancel() }
    suite.set(20, forKey: "second")
    try await $value.load(.appStorage("second"))
    #expect(value == 20)
    #expect(received.value == [1, 20])
  }
}
