/// Who changed the shared state last, and when: every window writes it, under the key
/// `last-change`, after each change it makes, so that the others can count changes from other
/// processes and show how long one took to arrive.
struct LastChange: Codable, Equatable, Sendable {
  /// The writing process.
  var pid: Int32
  /// Counts the writer's changes, so that a reader that sees only the latest of several quick
  /// ones (inotify events coalesce) still counts them all.
  var sequence: Int
  /// When the change was made, in nanoseconds since the Unix epoch.
  var unixNanoseconds: UInt64
}
