import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// Makes one C call of the storage layer, turning its failure into an `Errno`.
///
/// Every system call of `Storage/` goes through here: a result of `-1` becomes the `Errno` the
/// call left in `errno`, and a call interrupted by a signal (`EINTR`) is made again. (`close` is
/// the exception, see ``FileDescriptor/closeReportingFailure()``: on Linux the descriptor is gone
/// even when it reports `EINTR`, so it is never retried.)
@discardableResult
func systemCall<Result: FixedWidthInteger>(_ call: () -> Result) throws(Errno) -> Result {
  while true {
    let result = call()
    if result != -1 { return result }
    let error = Errno(rawValue: errno)
    if error != .interrupted { throw error }
  }
}

/// Runs one of swift-system's calls, which document that they throw only `Errno` but are not
/// declared with a typed `throws`, so that its failure reaches the caller as an `Errno`.
func errnoOnly<Result>(_ call: () throws -> Result) throws(Errno) -> Result {
  do {
    return try call()
  } catch let error as Errno {
    throw error
  } catch {
    preconditionFailure("swift-system threw \(error), not an Errno")
  }
}

/// Makes one C call that returns its error number instead of setting `errno` (`pthread_*`,
/// `posix_fallocate`, `getpwuid_r`), turning a non-zero result into an `Errno`; an interrupted
/// call (`EINTR`) is made again, as ``systemCall(_:)`` does.
func systemCallReturningError(_ call: () -> CInt) throws(Errno) {
  while true {
    let result = call()
    if result == 0 { return }
    let error = Errno(rawValue: result)
    if error != .interrupted { throw error }
  }
}
