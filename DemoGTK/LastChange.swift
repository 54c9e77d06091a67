/// Who changed the suite last, and when, under the key `last-change`: the terminal demo's
/// `LastChange` (Demo/UI). Every window writes it after each change it makes, so that the others
/// can count changes from other processes and show how long one took to arrive.
struct LastChange: Codable, Equatable, Sendable {
  /// The writing process.
  var pid: Int32
  /// How many changes all windows together have made to the suite; each adds one under the
  /// key's lock.
  var sequence: Int
  /// When the change was made, in nanoseconds since the Unix epoch.
  var unixNanoseconds: UInt64
}
