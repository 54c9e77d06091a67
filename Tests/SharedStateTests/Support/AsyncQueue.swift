import ConcurrencyExtras

/// Reads an asynchronous sequence one element at a time, each wait bounded by a timeout, so
/// that a test can act between elements.
final class AsyncQueue<Element: Sendable>: Sendable {
  private let iterator: LockIsolated<AsyncStream<Element>.Iterator>

  init(_ stream: AsyncStream<Element>) {
    iterator = LockIsolated(stream.makeAsyncIterator())
  }

  /// The next element, or `nil` when the sequence ended.
  ///
  /// - Throws: ``TimedOut`` when none arrives within `seconds`.
  func next(seconds: Double = 20) async throws -> Element? {
    try await withTimeout(seconds: seconds) { [iterator] in
      var current = iterator.value
      let element = await current.next()
      iterator.setValue(current)
      return element
    }
  }

  /// Skips elements until one satisfies `predicate`, and returns it.
  func next(seconds: Double = 20, where predicate: (Element) -> Bool) async throws -> Element {
    while true {
      guard let element = try await next(seconds: seconds) else { throw EndOfSequence() }
      if predicate(element) { return element }
    }
  }

  /// The error for a sequence that ended before the element a test waited for.
  struct EndOfSequence: Error {}
}
