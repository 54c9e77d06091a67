/// Reads an asynchronous sequence one element at a time, each wait bounded by a timeout, so
/// that a test can act between elements.
struct AsyncQueue<Element: Sendable>: Sendable {
  // Iterators of one `AsyncStream` share its buffer: each new one continues where the last
  // stopped, which lets every wait run in a task of its own under a timeout.
  private let stream: AsyncStream<Element>

  init(_ stream: AsyncStream<Element>) {
    self.stream = stream
  }

  /// The next element, or `nil` when the sequence ended.
  ///
  /// - Throws: ``TimedOut`` when none arrives within `seconds`.
  func next(seconds: Double = 20) async throws -> Element? {
    try await withTimeout(seconds: seconds) { [stream] in
      var iterator = stream.makeAsyncIterator()
      return await iterator.next()
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
