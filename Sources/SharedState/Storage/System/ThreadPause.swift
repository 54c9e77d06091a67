#if canImport(Glibc)
  import Glibc
#endif

/// Short waits of the calling thread, for a reader that gives a writer of another process a
/// moment to finish (a few system calls) rather than taking a lock.
enum ThreadPause {
  /// Lets another runnable thread run first.
  ///
  /// The corresponding C function is `sched_yield`.
  static func yield() {
    sched_yield()
  }

  /// Sleeps for about `microseconds` (an interrupted sleep simply ends early).
  ///
  /// The corresponding C function is `usleep`.
  static func sleep(microseconds: UInt32) {
    usleep(microseconds)
  }

  /// The pause before a reader's next look at a busy writer: two yields, then 20 µs pauses.
  static func awaitingWriter(attempt: Int) {
    if attempt < 2 { yield() } else { sleep(microseconds: 20) }
  }
}
