/// How long the watcher waits before trying again something that failed (starting inotify,
/// watching a directory): doubling from `initial` up to `maximum`, back to `initial` once it
/// works.
struct RetryBackoff: Equatable, Sendable {
  let initial: Duration
  let maximum: Duration
  /// The wait before the next try.
  private(set) var next: Duration

  init(initial: Duration = .milliseconds(50), maximum: Duration = .seconds(2)) {
    self.initial = initial
    self.maximum = maximum
    next = initial
  }

  /// The wait before the next try, and the one after it doubled.
  mutating func failed() -> Duration {
    defer { next = min(next * 2, maximum) }
    return next
  }

  /// Starts over after a success.
  mutating func succeeded() {
    next = initial
  }
}
