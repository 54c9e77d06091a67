#if canImport(Glibc)
  import Glibc
#endif

/// A POSIX mutex of a given kind at a fixed address, for the locks that call `pthread_mutex_*`
/// directly (``ThreadOwnedLock``, ``RecursiveLock``): a mutex must not move once initialised,
/// which a stored property of a Swift type may.
enum PosixMutex {
  /// A new mutex of `kind` (`PTHREAD_MUTEX_ERRORCHECK`, `PTHREAD_MUTEX_RECURSIVE`), initialised;
  /// give it back to ``destroy(_:)``.
  static func make(kind: Int32) -> UnsafeMutablePointer<pthread_mutex_t> {
    let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    var attributes = pthread_mutexattr_t()
    pthread_mutexattr_init(&attributes)
    pthread_mutexattr_settype(&attributes, kind)
    pthread_mutex_init(mutex, &attributes)
    pthread_mutexattr_destroy(&attributes)
    return mutex
  }

  /// Destroys and frees a mutex ``make(kind:)`` made.
  static func destroy(_ mutex: UnsafeMutablePointer<pthread_mutex_t>) {
    pthread_mutex_destroy(mutex)
    mutex.deallocate()
  }
}
