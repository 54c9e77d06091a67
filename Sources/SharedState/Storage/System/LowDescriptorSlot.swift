import CSystemCalls
import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// One descriptor slot below ``selectLimit`` that the library holds in reserve from the moment
/// it is loaded, before the program has opened many files, and gives to libinotifytools.
///
/// libinotifytools waits on its inotify descriptor with `select()`, whose descriptor set ends at
/// ``selectLimit`` (a larger descriptor would be written past its end); it opens that descriptor
/// with `inotify_init()`, which takes the lowest free slot.
enum LowDescriptorSlot {
  /// The first descriptor `select()` cannot take (`FD_SETSIZE`).
  static let selectLimit = Int32(FD_SETSIZE)

  /// Gives up the reserved slot, so that the next descriptor the process opens takes it (or a
  /// lower one). Returns it, or `nil` when there is none: never reserved, or the program
  /// closed it (nothing is closed then).
  ///
  /// The corresponding C calls are `fstat` and `close` on the slot's unnamed file.
  @discardableResult
  static func release() -> FileDescriptor? {
    let slot = shared_state_release_low_descriptor()
    return slot >= 0 ? FileDescriptor(rawValue: slot) : nil
  }

  /// Reserves the lowest free slot, when it is below ``selectLimit``, unless one is held
  /// already. Returns the slot held, or `nil`.
  ///
  /// The corresponding C function is `memfd_create`, then `fstat`.
  @discardableResult
  static func reserve() -> FileDescriptor? {
    let slot = shared_state_reserve_low_descriptor()
    return slot >= 0 ? FileDescriptor(rawValue: slot) : nil
  }
}
