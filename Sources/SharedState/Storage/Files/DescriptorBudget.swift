import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// How many stored paths may keep their descriptors (and their mapped page) open between
/// transactions: a share of the process's limit on open files (`RLIMIT_NOFILE`), so that the
/// library never takes what the program needs for itself.
///
/// A path that keeps its descriptors holds at most ``descriptorsPerPath`` of them: the lock file
/// and the two inodes that alternate at the target and scratch names. A path that is not given a
/// place opens and closes them in each transaction (a few system calls more), and works the same.
///
/// The library takes at most a quarter of the soft limit, less a few descriptors for the ones it
/// opens for a moment (a transaction's, the watcher's), and never more than ``maximumPaths``
/// paths: under `ulimit -n 256`, 18 paths (54 descriptors), leaving 200 to the program; under
/// 1024, 82 paths. The limit is read again each time a path asks (one `getrlimit`), so that a
/// program that raises or lowers it is followed for the paths opened afterwards, unless
/// ``maximumPaths`` places are taken already (then no limit could give another).
enum DescriptorBudget {
  /// The most descriptors one path keeps open.
  static let descriptorsPerPath = 3
  /// The most paths that keep descriptors, however high the limit: enough for the keys a
  /// program uses often, each of whose mapped page also costs a page of memory.
  static let maximumPaths = 128
  /// The descriptors left for what the library opens for a moment, out of its share.
  static let transientDescriptors = 8

  private static let pathsHolding = Atomic<Int>(0)

  /// How many paths may keep descriptors under a soft limit of `softLimit` open files (`nil`:
  /// unlimited).
  static func paths(forSoftLimit softLimit: UInt64?) -> Int {
    guard let softLimit else { return maximumPaths }
    let share = Int(min(softLimit / 4, UInt64(Int.max)))
    return min(max((share - transientDescriptors) / descriptorsPerPath, 0), maximumPaths)
  }

  /// The process's soft limit on open files, `nil` when it is unlimited (or cannot be read:
  /// then the fixed maximum is taken, as before the limit was consulted).
  ///
  /// The corresponding C function is `getrlimit(RLIMIT_NOFILE)`.
  static func softLimit() -> UInt64? {
    var limit = rlimit()
    guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max else { return nil }
    return UInt64(limit.rlim_cur)
  }

  /// Takes a place for one path, when there is one left under the current limit.
  static func takePlace() -> Bool {
    // Every place the most generous limit gives is taken: the limit need not be asked (a
    // program opening thousands of keys would ask once per key).
    if pathsHolding.load(ordering: .relaxed) >= maximumPaths { return false }
    let limit = paths(forSoftLimit: softLimit())
    if pathsHolding.add(1, ordering: .relaxed).newValue <= limit { return true }
    pathsHolding.subtract(1, ordering: .relaxed)
    return false
  }

  /// Gives back a place that ``takePlace()`` gave.
  static func givePlaceBack() {
    pathsHolding.subtract(1, ordering: .relaxed)
  }
}
