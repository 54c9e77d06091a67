/// Who changed the shared state last, and when: every window writes it, under the key
/// `last-change`, after each change it makes, so that the others can count changes from other
/// processes and show how long one took to arrive.
struct LastChange: Codable, Equatable, Sendable {
  /// The writing process.
  var pid: Int32
  /// How many changes every window together has made to the suite: each adds one, under the
  /// key's lock, so that a window that sees only the latest of several changes still counts
  /// them all.
  var sequence: Int
  /// When the change was made, in nanoseconds since the Unix epoch.
  var unixNanoseconds: UInt64
}
