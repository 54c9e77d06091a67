/// The entries of a ``ChangeOutbox`` or an ``OutboxBatch``, in order, the first kept inline: a
/// write queues one entry, and an array would be allocated for it on every write (the queue
/// keeps no buffer between deliveries: a program with thousands of idle keys would keep one per
/// key).
struct OutboxEntries: Sequence {
  private var first: OutboxEntry?
  private var rest: [OutboxEntry] = []

  /// Whether nothing is queued. (Not `isEmpty`: that is `Sequence`'s name for a different
  /// thing, and this type's is one comparison.)
  @inline(__always)
  var hasNone: Bool {
    if case .none = first { return true }
    return false
  }

  /// The last entry, if any.
  @inline(__always)
  var last: OutboxEntry? {
    rest.count != 0 ? rest[rest.count - 1] : first
  }

  @inline(__always)
  mutating func append(_ entry: OutboxEntry) {
    if case .none = first { first = entry } else { rest.append(entry) }
  }

  /// Replaces the last entry; there must be one.
  @inline(__always)
  mutating func replaceLast(with entry: OutboxEntry) {
    if rest.count != 0 { rest[rest.count - 1] = entry } else { first = entry }
  }

  /// Empties it, keeping no buffer.
  @inline(__always)
  mutating func removeAll() {
    first = nil
    if rest.count != 0 { rest = [] }
  }

  func makeIterator() -> Iterator {
    Iterator(first: first, rest: rest)
  }

  struct Iterator: IteratorProtocol {
    fileprivate var first: OutboxEntry?
    fileprivate let rest: [OutboxEntry]
    private var index = 0

    fileprivate init(first: OutboxEntry?, rest: [OutboxEntry]) {
      self.first = first
      self.rest = rest
    }

    mutating func next() -> OutboxEntry? {
      if let entry = first {
        first = nil
        return entry
      }
      guard index < rest.count else { return nil }
      defer { index += 1 }
      return rest[index]
    }
  }
}
