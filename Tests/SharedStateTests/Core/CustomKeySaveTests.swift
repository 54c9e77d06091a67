import ConcurrencyExtras
import Dispatch
import Foundation
import SharedState
import Testing

/// A custom key's `save` is the program's code: `withLock` hands it the committed value once the
/// reference's lock is released (invariant 10), in commit order.
@Suite("A custom key's save")
struct CustomKeySaveTests {
  /// A key whose first save waits until the test opens its gate, and which records every save.
  private struct GatedKey: SharedKey {
    let id = UUID()
    /// Signalled as each save begins.
    let saveBegan = DispatchSemaphore(value: 0)
    let gate = DispatchSemaphore(value: 0)
    let saved = LockIsolated<[Int]>([])

    func load(context: LoadContext<Int>, continuation: LoadContinuation<Int>) {
      continuation.resumeReturningInitialValue()
    }

    func subscribe(context: LoadContext<Int>, subscriber: SharedSubscriber<Int>) -> SharedSubscription {
      SharedSubscription {}
    }

    func save(_ value: Int, context: SaveContext, continuation: SaveContinuation) {
      let isFirst = saved.withValue { saved in
        saved.append(value)
        return saved.count == 1
      }
      saveBegan.signal()
      if isFirst { gate.wait() }
      continuation.resume()
    }
  }

  /// While one thread's save waits, another thread reads and writes the same state; the saves
  /// then reach the key in the order of the values. The threads are threads of their own, so
  /// that a thread held up cannot also hold up the timeout. The timeouts are bounds for failure:
  /// inside the full parallel suite the tasks' threads can all be busy for tens of seconds.
  @Test func aSlowSaveHoldsUpNoOtherThreadAndSavesKeepTheirOrder() async throws {
    let key = GatedKey()
    // Opened on every path out, so that no thread stays blocked after a failure.
    defer { key.gate.signal() }
    let shared = Shared(wrappedValue: 0, key)
    Thread.detachNewThread { shared.withLock { $0 = 1 } }
    #expect(await Self.wait(for: key.saveBegan) == .success, "the first save began")

    let (finished, finish) = AsyncStream<Int>.makeStream()
    Thread.detachNewThread {
      shared.withLock { $0 += 1 }
      finish.yield(shared.wrappedValue)
    }
    let seen = try await first(1, of: finished, seconds: 60)
    key.gate.signal()
    #expect(seen == [2])

    // The first thread, which was delivering when the second wrote, hands on the second save.
    #expect(await Self.wait(for: key.saveBegan) == .success, "the second save began")
    #expect(key.saved.value == [1, 2])
  }

  /// Waits for `semaphore` on a thread of its own, for at most a minute (a bound for failure:
  /// inside the full parallel suite the tasks' threads can all be busy for tens of seconds).
  private static func wait(for semaphore: DispatchSemaphore) async -> DispatchTimeoutResult {
    await withCheckedContinuation { continuation in
      Thread.detachNewThread { continuation.resume(returning: semaphore.wait(timeout: .now() + 60)) }
    }
  }
}
