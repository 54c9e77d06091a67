import Foundation

/// The error a test gets when what it waits for does not happen in time.
struct TimedOut: Error, CustomStringConvertible {
  let seconds: Double
  /// What did not come, when the waiter knows: a test that waits several times says which.
  var awaited: String?

  var description: String {
    "Nothing happened within \(seconds) seconds" + (awaited.map { " (waiting for \($0))" } ?? "") + "."
  }
}

/// Runs `operation`, failing with ``TimedOut`` when it takes longer than `seconds`.
func withTimeout<T: Sendable>(
  seconds: Double = 10,
  _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
  try await withThrowingTaskGroup(of: T.self) { group in
    group.addTask { try await operation() }
    group.addTask {
      try await Task.sleep(for: .seconds(seconds))
      throw TimedOut(seconds: seconds)
    }
    defer { group.cancelAll() }
    return try await group.next()!
  }
}

/// Collects the first `count` elements of a sequence, failing with ``TimedOut`` when they do not
/// all arrive within `seconds`.
func first<S: AsyncSequence & Sendable>(
  _ count: Int,
  of sequence: S,
  seconds: Double = 10
) async throws -> [S.Element] where S.Element: Sendable {
  try await withTimeout(seconds: seconds) {
    var elements: [S.Element] = []
    for try await element in sequence {
      elements.append(element)
      if elements.count == count { break }
    }
    return elements
  }
}

/// Runs each of `loops` on a thread of its own, all at once, and waits until every one has
/// returned, failing with ``TimedOut`` after `seconds`. For work that may deadlock: on the
/// cooperative pool a deadlock could also hold the threads that run the timeout.
func onThreadsOfTheirOwn(seconds: Double, _ loops: (@Sendable () -> Void)...) async throws {
  let (finished, finish) = AsyncStream<Void>.makeStream()
  for loop in loops {
    Thread.detachNewThread {
      loop()
      finish.yield()
    }
  }
  _ = try await first(loops.count, of: finished, seconds: seconds)
}
