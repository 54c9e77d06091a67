#if canImport(Glibc)
  import Glibc
#endif

/// The system's monotonic clock, which setting the time of day does not move.
enum MonotonicClock {
  /// Now, in nanoseconds since an unspecified start.
  ///
  /// The corresponding C call is `clock_gettime(CLOCK_MONOTONIC, …)` (answered in the process,
  /// through the vDSO, without entering the kernel).
  static func nanoseconds() -> UInt64 {
    var time = timespec()
    // It cannot fail: the clock exists on every Linux, and the pointer is valid. (Called for
    // every event the reader takes: no error path to build.)
    clock_gettime(CLOCK_MONOTONIC, &time)
    return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
  }
}
