import SharedState

/// Who changed the shared state last, and when: every window writes it, under the key
/// `last-change`, after each change it makes, so that the others can count changes from other
/// processes and show how long one took to arrive.
package struct LastChange: Codable, Equatable, Sendable {
  /// The writing process.
  package var pid: Int32
  /// How many changes every window together has made to the suite: each adds one, under the
  /// key's lock, so that a window that sees only the latest of several changes still counts
  /// them all.
  package var sequence: Int
  /// When the change was made, in nanoseconds since the Unix epoch.
  package var unixNanoseconds: UInt64

  /// A change of the suite, the `sequence`th, made by `pid` at `unixNanoseconds`.
  package init(pid: Int32, sequence: Int, unixNanoseconds: UInt64) {
    self.pid = pid
    self.sequence = sequence
    self.unixNanoseconds = unixNanoseconds
  }
}

extension Shared where Value == LastChange? {
  /// Counts one more change of the suite, made by `pid`, under the key's lock; returns the
  /// suite's new change count.
  ///
  /// - Parameter now: The time in nanoseconds since the Unix epoch; read once the lock is
  ///   held, so that a wait for the lock does not count as latency.
  @discardableResult
  package func recordChange(by pid: Int32, now: () -> UInt64) -> Int {
    withLock { last in
      let sequence = (last?.sequence ?? 0) + 1
      last = LastChange(pid: pid, sequence: sequence, unixNanoseconds: now())
      return sequence
    }
  }
}
