#if canImport(Glibc)
  import Glibc
#endif

/// A lock that the thread holding it may take again: a POSIX recursive mutex, called directly.
///
/// What a reference's state is guarded by: code inside a `withLock` body may read the state, or
/// change it through a nested `withLock`, on the same thread. Foundation's `NSRecursiveLock` is
/// the same mutex reached through a class's dynamic dispatch and a protocol witness on every
/// read and write, and it allocates a condition and a second mutex besides, for timed waits no
/// reference makes (four allocations per reference; this is two).
///
/// `@unchecked Sendable`: the mutex lives at a fixed address allocated here and is only used
/// through `pthread_mutex_*`, which are safe from any thread.
final class RecursiveLock: @unchecked Sendable {
  private let mutex: UnsafeMutablePointer<pthread_mutex_t>

  init() {
    mutex = PosixMutex.make(kind: Int32(PTHREAD_MUTEX_RECURSIVE))
  }

  deinit {
    PosixMutex.destroy(mutex)
  }

  /// Runs `body` holding the lock, waiting for it unless this thread holds it already.
  @inline(__always)
  func withLock<R>(_ body: () throws -> R) rethrows -> R {
    let locked = pthread_mutex_lock(mutex)
    // The only failure of a recursive mutex used this way: more nested holds than it counts.
    precondition(locked == 0, "pthread_mutex_lock: \(locked)")
    defer { pthread_mutex_unlock(mutex) }
    return try body()
  }
}
