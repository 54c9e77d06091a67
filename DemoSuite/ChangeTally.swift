/// One window's count of the suite's changes: how many other processes made since it opened,
/// and how long the last of them took to arrive.
///
/// Exact even when several changes arrive as one (inotify events coalesce) or this window's own
/// write hides another's: every change advances the suite's count (``LastChange/sequence``) by
/// one, and the window knows how many were its own.
package struct ChangeTally: Sendable {
  /// This process, the writer of the window's own changes.
  private let pid: Int32
  /// The suite's change count when the window opened, and the highest seen since.
  private let firstSequence: Int
  private var latestSequence: Int
  private var changesMade = 0
  /// How long the last change from another process took to arrive, in nanoseconds.
  package private(set) var lastLatency: UInt64?

  /// The tally of a window of process `pid` that opens on `lastChange`: changes made before it
  /// opened are not changes that arrived while it watched.
  package init(pid: Int32, opening lastChange: LastChange?) {
    self.pid = pid
    firstSequence = lastChange?.sequence ?? 0
    latestSequence = firstSequence
  }

  /// Notes a change this window made, the suite's `sequence`th.
  package mutating func made(_ sequence: Int) {
    changesMade += 1
    latestSequence = max(latestSequence, sequence)
  }

  /// Notes a value of `last-change` that arrived at `receivedAt` (nanoseconds since the Unix
  /// epoch): it advances the suite's change count, and when another process wrote it, its
  /// latency is how long it took to arrive.
  ///
  /// - Returns: That latency, for a change not seen before from another process; otherwise `nil`.
  @discardableResult
  package mutating func receive(_ change: LastChange?, at receivedAt: UInt64) -> UInt64? {
    guard let change, change.sequence > latestSequence else { return nil }
    latestSequence = change.sequence
    guard change.pid != pid else { return nil }
    let latency = receivedAt >= change.unixNanoseconds ? receivedAt - change.unixNanoseconds : 0
    lastLatency = latency
    return latency
  }

  /// The changes other processes made since the window opened.
  package var changesFromOthers: Int {
    max(latestSequence - firstSequence - changesMade, 0)
  }
}
