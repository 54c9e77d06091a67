import ConcurrencyExtras
import SharedState
import Testing

@Suite("Change stream")
struct ChangeStreamTests {
  @Test func startsWithTheCurrentValueThenEveryChange() async throws {
    let count = Shared(value: 10)
    let values = count.values
    count.withLock { $0 = 11 }
    count.withLock { $0 = 12 }
    #expect(try await first(3, of: values) == [10, 11, 12])
  }

  @Test func seesChangesFromElsewhere() async throws {
    let backend = TestBackend<String>(stored: "a")
    @Shared(TestKey(name: "stream", backend: backend)) var text = ""
    let values = $text.values
    backend.writeFromElsewhere("b")
    #expect(try await first(2, of: values) == ["a", "b"])
  }

  @Test func derivedStreamSkipsChangesToOtherMembers() async throws {
    struct Pair: Sendable { var left = 0, right = 0 }
    let pair = Shared(value: Pair())
    let lefts = pair.left.values
    pair.withLock { $0.right = 1 }
    pair.withLock { $0.left = 1 }
    #expect(try await first(2, of: lefts) == [0, 1])
  }

  @Test func readerHasAStreamToo() async throws {
    let count = Shared(value: 1)
    let values = SharedReader(count).values
    count.withLock { $0 = 2 }
    #expect(try await first(2, of: values) == [1, 2])
  }

  @Test func endsWhenItsTaskIsCancelled() async throws {
    let count = Shared(value: 0)
    let received = LockIsolated(0)
    let consumer = Task {
      for await _ in count.values {
        received.withValue { $0 += 1 }
      }
      return received.value
    }
    // Wait for the first value, so that cancellation hits an iteration in progress.
    try await withTimeout {
      while received.value == 0 { await Task.yield() }
    }
    consumer.cancel()
    let total = try await withTimeout { await consumer.value }
    #expect(total >= 1)
  }
}
