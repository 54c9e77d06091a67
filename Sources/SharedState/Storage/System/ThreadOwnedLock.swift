#if canImport(Glibc)
  import Glibc
#endif

/// An in-process lock held from one call to another (a transaction's beginning to its end), that
/// tells a thread asking for it again that it holds it already instead of deadlocking.
///
/// Not Synchronization's `Mutex`, which only offers a scoped `withLock`, and traps when its
/// holder asks again. This is a POSIX error-checking mutex: the C library, which knows the
/// holder, answers `EDEADLK` to that thread, so the lock keeps no record of its own.
///
/// `@unchecked Sendable`: the mutex lives at a fixed address allocated here and is only used
/// through `pthread_mutex_*`, which are safe from any thread.
final class ThreadOwnedLock: @unchecked Sendable {
  /// What asking for the lock found.
  enum Outcome {
    /// The calling thread now holds the lock and must call ``unlock()``.
    case acquired
    /// The calling thread held it already; nothing changed, and it must not unlock for this.
    case heldByThisThread
  }

  private let mutex: UnsafeMutablePointer<pthread_mutex_t>

  init() {
    mutex = PosixMutex.make(kind: Int32(PTHREAD_MUTEX_ERRORCHECK))
  }

  deinit {
    PosixMutex.destroy(mutex)
  }

  /// Waits for the lock, unless this thread holds it.
  func lock() -> Outcome {
    let result = pthread_mutex_lock(mutex)
    // The only other failures (EINVAL, EAGAIN) belong to kinds of mutex this is not.
    precondition(result == 0 || result == EDEADLK, "pthread_mutex_lock: \(result)")
    return result == 0 ? .acquired : .heldByThisThread
  }

  /// Releases the lock this thread acquired.
  func unlock() {
    let result = pthread_mutex_unlock(mutex)
    precondition(result == 0, "unlocking a lock this thread does not hold")
  }
}
