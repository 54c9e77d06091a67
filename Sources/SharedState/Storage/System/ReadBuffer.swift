import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// The buffer a whole file is read into.
///
/// A large one gets an anonymous mapping of its own, unmapped when the last `Data` that holds it
/// goes away, so that its memory goes back to the system at once. From `malloc` it may not:
/// glibc raises its threshold for mapping to the size of the last mapped block it freed (up to
/// 32 MiB), so the next file of that size comes from the heap, and freed at the top of the heap it
/// stays resident, because the threshold for giving memory back rises with it. Measured: after one
/// change of a 24 MB value, a watcher kept 24 MB more resident than the value it held.
enum ReadBuffer {
  /// From this size up, a buffer is a mapping of its own.
  static let smallestMapped = 1 << 20

  /// `count` bytes, zeroed.
  ///
  /// The corresponding C functions are `mmap` and `munmap`.
  static func zeroed(count: Int) -> Data {
    guard count >= smallestMapped,
      let address = mmap(nil, count, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
      address != MAP_FAILED
    else { return Data(count: count) }
    // Fresh anonymous pages read as zero and take no memory until they are written. Unmapped
    // whole, whatever length the data has been cut to by then.
    let mapped = count
    return Data(bytesNoCopy: address, count: count, deallocator: .custom { address, _ in _ = munmap(address, mapped) })
  }
}
