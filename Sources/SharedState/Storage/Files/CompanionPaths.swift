import Synchronization
import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// The paths a stored file on disk uses beside its target, all in the target's directory.
///
/// - `.NAME.sharedstate-lock`: never renamed or replaced, so that every process locks the same
///   inode; it is also the coordination page (see ``CoordinationPage``).
/// - `.NAME.sharedstate-scratch`: where the next contents are written before they are exchanged
///   with the target.
///
/// Both are made by the first write that takes the lock. A first read's store where there is no
/// lock file writes under a name of its own, `.NAME.new-PID-N.sharedstate-scratch`, for the
/// moment before its rename into place (see ``UnlockedCreation``).
///
/// A class, so that the owners of one path (``PathLock``, ``FileReplacement``, the freshness
/// check) share one copy: a program may open thousands of files.
final class CompanionPaths: Sendable {
  /// The file that holds the value.
  let target: FilePath
  /// The directory that holds the target.
  let directory: FilePath
  /// The name of the target within its directory.
  let name: String
  /// The lock file. Made at each use, not kept: a program may open thousands of keys, most of
  /// which never have a lock file (see ``UnlockedCreation``), and a path that keeps its
  /// descriptors opens it once.
  var lock: FilePath {
    directory.appending(lockName)
  }

  /// The lock file's name in ``directory``.
  var lockName: String { ".\(name)\(Self.lockSuffix)" }

  /// The scratch file's name in ``directory``.
  var scratchName: String { ".\(name)\(Self.scratchSuffix)" }
  /// The scratch file, named the first time something needs it: most keys a program opens are
  /// never written.
  var scratch: FilePath {
    madeOnDemand.withLock { Self.made(&$0.scratch) { scratchPath } }
  }
  // The scratch path, and the paths transactions name as C strings (the target also for the
  // looks events prompt), made the first time they are needed: a program may open
  // thousands of files and never write or hear of most of them.
  // A `Mutex`, not `AtomicLazyReference`s: the latter's `load()` is not inlined into this module,
  // and looked up its generic metadata at every call, several times per write.
  private let madeOnDemand = Mutex(MadeOnDemand())

  private struct MadeOnDemand {
    var scratch: FilePath?
    var targetForCalls: PlatformPath?
    var scratchForCalls: PlatformPath?
  }

  /// The target, as the system calls of a transaction, or of a look an event prompts, take it.
  var targetForCalls: PlatformPath {
    madeOnDemand.withLock { Self.made(&$0.targetForCalls) { PlatformPath(target) } }
  }

  /// The scratch file, as the system calls of a transaction take it.
  var scratchForCalls: PlatformPath {
    madeOnDemand.withLock { made in
      if let scratchForCalls = made.scratchForCalls { return scratchForCalls }
      let scratchForCalls = PlatformPath(Self.made(&made.scratch) { scratchPath })
      made.scratchForCalls = scratchForCalls
      return scratchForCalls
    }
  }

  private var scratchPath: FilePath {
    directory.appending(scratchName)
  }

  /// What `slot` holds, made by `make` and kept there the first time.
  private static func made<Made>(_ slot: inout Made?, by make: () -> Made) -> Made {
    if let slot { return slot }
    let made = make()
    slot = made
    return made
  }

  /// The suffixes of companion file names, for code that lists a directory.
  static var lockSuffix: String { lockSuffixLiteral.description }
  static var scratchSuffix: String { scratchSuffixLiteral.description }

  /// - Parameters:
  ///   - target: An absolute, lexically normal path with a file name.
  ///   - directory: The target's directory, when the caller has a copy to share (a program may
  ///     open thousands of files of one directory).
  init(target: FilePath, directory: FilePath? = nil) {
    let parts = target.directoryAndName
    let directory = directory ?? parts?.directory ?? target
    let name = parts?.name ?? ""
    self.target = target
    self.directory = directory
    self.name = name
  }

  /// Whether a file name is a companion of some target, not a target itself.
  static func isCompanion(_ name: String) -> Bool {
    name.hasPrefix(".") && (name.hasSuffix(lockSuffix) || name.hasSuffix(scratchSuffix))
  }

  /// ``isCompanion(_:)`` of a name as the system gives it, compared byte for byte (companion
  /// names are made by appending a suffix), without making a `String` of it.
  ///
  /// - Parameters:
  ///   - name: The name, a C string.
  ///   - length: Its length in bytes, when the caller knows it (`strlen(name)` otherwise).
  static func isCompanion(systemName name: UnsafePointer<CChar>, length: Int? = nil) -> Bool {
    guard name.pointee == CChar(UInt8(ascii: ".")) else { return false }
    let length = length ?? strlen(name)
    return endsWith(name, length, lockSuffixLiteral) || endsWith(name, length, scratchSuffixLiteral)
  }

  /// The suffixes as literals: their bytes need no `swift_once` and no array (the reader asks
  /// this of every event's name).
  private static var lockSuffixLiteral: StaticString { ".sharedstate-lock" }
  private static var scratchSuffixLiteral: StaticString { ".sharedstate-scratch" }

  private static func endsWith(_ name: UnsafePointer<CChar>, _ length: Int, _ suffix: StaticString) -> Bool {
    let count = suffix.utf8CodeUnitCount
    guard length >= count else { return false }
    return memcmp(name + (length - count), suffix.utf8Start, count) == 0
  }
}
