import Atomics
import Foundation
import SystemPackage

/// The lock file, memory-mapped: a page every cooperating process shares, which says what the
/// last cooperating write left at the target name, so that nobody opens the target to learn it.
///
/// ## Layout (little-endian 64-bit words, then bytes)
///
/// | word | meaning |
/// |---|---|
/// | 0 | the sequence: even when quiet, odd while a writer is between starting to write the scratch file and finishing this page (a seqlock); it grows by 2 with each write |
/// | 1 | the sequence the words below describe |
/// | 2–8 | the identity of the inode at the target name after that write (device, inode, size, modification and change times) |
/// | 9 | 0: no copy; 1: no file at the target; 2: the contents follow |
/// | 10 | the contents' length |
/// | 11 | the sequence the write under way ends at, once it has announced what it writes (words 12–14 and the contents) |
/// | 12–13 | the inode the announced write exchanges into place: device, inode |
/// | 14 | the announced contents' length |
/// | 16… | the contents, when they fit (up to ``contentsCapacity`` bytes) |
///
/// A writer announces its contents (``announce(endingAt:device:inode:contents:)``) after it turns
/// the sequence odd and before its exchange, so that a reader woken by the exchange need not
/// open the file while the writer finishes the page (``announcement(endingAt:)``): with dozens
/// of watchers woken on two cores, the writer is most often the last to run again.
///
/// The file is the truth and the page only a cache, which is trusted only when it is provably
/// current: its sequence is even and unchanged around the read, the described sequence equals
/// it, and the identity equals what `fstatat` finds at the target name now. A writer killed
/// mid-update leaves an odd sequence, or an identity that no longer matches, or a described
/// sequence behind: all detectably stale. The old edition of this library wrote only word 0,
/// which leaves the described sequence behind as well.
///
/// `@unchecked Sendable`: the mapping is shared memory that other processes write anyway; every
/// access goes through atomics or is validated by the seqlock, and it is never unmapped while the
/// page lives.
final class CoordinationPage: @unchecked Sendable {
  // Computed, not stored: a stored `static let` goes through `swift_once` at each use, and the
  // reader's look uses them on every event.
  /// The length of the mapping and the size the lock file is grown to.
  static var length: Int { 4096 }
  static var contentsOffset: Int { 128 }
  /// The most bytes of contents the page holds.
  static var contentsCapacity: Int { length - contentsOffset }

  private let base: UnsafeMutableRawPointer
  /// Whether the page is mapped for writing. A page mapped for reading only (its lock file could
  /// be opened for reading only: another user's, or on a read-only mount) serves looks; a writer
  /// maps the page again before it writes (see `PathLock`).
  let isWritable: Bool

  private init(base: UnsafeMutableRawPointer, isWritable: Bool) {
    self.base = base
    self.isWritable = isWritable
  }

  deinit {
    unmapShared(base, length: Self.length)
  }

  /// Maps the page of an open lock file, when it can be trusted: a regular file of at least a
  /// page that only its owner (this user, or root) can write, on a local file system. Returns
  /// `nil` otherwise, and the file alone is used.
  ///
  /// A file someone else can write (or shorten: a mapped page past the end faults) is not
  /// mapped.
  ///
  /// - Parameter writable: Whether to map it for writing (`descriptor` is open for writing)
  ///   or for reading only.
  static func map(_ descriptor: FileDescriptor, status: EntryStatus, writable: Bool = true) -> CoordinationPage? {
    let owner = status.owner
    guard owner == ProcessCredentials.user || owner == 0,
      status.mode & 0o022 == 0,
      status.size >= length,
      (try? descriptor.isOnNetworkFileSystem()) == false,
      let base = try? descriptor.mapShared(length: length, writable: writable)
    else { return nil }
    return CoordinationPage(base: base, isWritable: writable)
  }

  private func word(_ index: Int) -> UnsafeAtomic<UInt64> {
    UnsafeAtomic(at: (base + index * 8).assumingMemoryBound(to: UInt64.AtomicRepresentation.self))
  }

  /// The sequence now, read without any lock.
  var sequence: UInt64 { word(0).load(ordering: .acquiring) }

  /// What the page says the finished write that made `sequence` left at the target name, read
  /// without any lock: `.missing` when it left no file, its contents when the page holds them
  /// (at most `limit` bytes); `nil` when the page does not describe that write (another began,
  /// a writer is busy, the contents did not fit), or when the identity it gives is not
  /// `identity` (what the caller found at the name).
  ///
  /// The contents are copied only once everything else matched, and trusted only if the
  /// sequence is still `sequence` after the copy (a seqlock). A busy writer is not waited for:
  /// the caller reads the file instead.
  func state(describing sequence: UInt64, identity: FileIdentity?, limit: Int) -> FileState? {
    guard sequence & 1 == 0, word(0).load(ordering: .acquiring) == sequence,
      word(1).load(ordering: .relaxed) == sequence
    else { return nil }
    let state: FileState
    switch word(9).load(ordering: .relaxed) {
    case 1:
      guard identity == nil else { return nil }
      state = .missing
    case 2:
      let described = FileIdentity(
        device: word(2).load(ordering: .relaxed),
        inode: word(3).load(ordering: .relaxed),
        size: Int64(bitPattern: word(4).load(ordering: .relaxed)),
        modificationSeconds: Int64(bitPattern: word(5).load(ordering: .relaxed)),
        modificationNanoseconds: Int64(bitPattern: word(6).load(ordering: .relaxed)),
        changeSeconds: Int64(bitPattern: word(7).load(ordering: .relaxed)),
        changeNanoseconds: Int64(bitPattern: word(8).load(ordering: .relaxed))
      )
      let count = Int(truncatingIfNeeded: word(10).load(ordering: .relaxed))
      guard identity == described, count >= 0, count <= Self.contentsCapacity, count <= limit else { return nil }
      state = .contents(FileContents(copying: UnsafeRawBufferPointer(start: base + Self.contentsOffset, count: count)))
    default:
      // 0: nothing copied; 3: the identity without the contents.
      return nil
    }
    atomicMemoryFence(ordering: .acquiring)
    return word(0).load(ordering: .relaxed) == sequence ? state : nil
  }

  /// Marks the start of a write: the sequence turns odd, so that lock-free readers distrust the
  /// page and what they read of the target until ``finishWrite(identity:state:)``. Call it
  /// holding the exclusive lock.
  ///
  /// - Returns: The sequence the write will end at.
  func beginWrite() -> UInt64 {
    let current = word(0).load(ordering: .relaxed)
    // An odd sequence is a writer that died mid-update: carry on past it, to a sequence of our
    // own, so that no reader takes what that writer announced for this write's (see
    // `announcement(endingAt:)`).
    let busy = current & 1 == 1 ? current &+ 2 : current | 1
    word(0).store(busy, ordering: .relaxed)
    atomicMemoryFence(ordering: .releasing)
    return busy &+ 1
  }

  /// What a write under way announced: the inode it exchanges into place, and the length of
  /// its contents (read with ``announcedContents(_:)``).
  struct Announcement {
    let device: UInt64
    let inode: UInt64
    let count: Int
  }

  /// Announces what the write ending at `sequence` (from ``beginWrite()``) puts at the target
  /// name: the inode it is about to exchange into place, and its contents, when they fit. Call it
  /// holding the exclusive lock, before the exchange.
  ///
  /// The contents go where a finished write's go: nobody trusts them while the sequence is odd,
  /// except as this announcement, and ``finishWrite(sequence:identity:state:)`` then has them in
  /// place already.
  func announce(endingAt sequence: UInt64, device: UInt64, inode: UInt64, contents: FileContents) {
    guard contents.count <= Self.contentsCapacity else { return }
    copyIntoContents(contents)
    word(12).store(device, ordering: .relaxed)
    word(13).store(inode, ordering: .relaxed)
    word(14).store(UInt64(contents.count), ordering: .relaxed)
    word(11).store(sequence, ordering: .releasing)
  }

  /// What the write under way, ending at `sequence`, announced; `nil` when it announced nothing.
  ///
  /// Trust it, and the contents read with ``announcedContents(_:)``, only once
  /// ``isUnderWayOrFinished(endingAt:)`` says, *after* the caller has found the announced inode
  /// at the target name and copied the contents, that no later write began: then that inode held
  /// these contents when it was found there (a writer writes only its scratch, and the inode it
  /// exchanges into place is written again only two writes later; the page's contents, only by
  /// a later write, after it began).
  func announcement(endingAt sequence: UInt64) -> Announcement? {
    guard word(11).load(ordering: .acquiring) == sequence else { return nil }
    let count = Int(truncatingIfNeeded: word(14).load(ordering: .relaxed))
    guard count >= 0, count <= Self.contentsCapacity else { return nil }
    return Announcement(device: word(12).load(ordering: .relaxed), inode: word(13).load(ordering: .relaxed), count: count)
  }

  /// A copy of the contents `announcement` announced: apart from the announcement, so that a
  /// reader that knows them already copies nothing.
  func announcedContents(_ announcement: Announcement) -> FileContents {
    FileContents(copying: UnsafeRawBufferPointer(start: base + Self.contentsOffset, count: announcement.count))
  }

  /// Whether the write ending at `sequence` is still under way or has finished, and no other
  /// began since.
  func isUnderWayOrFinished(endingAt sequence: UInt64) -> Bool {
    atomicMemoryFence(ordering: .acquiring)
    let now = word(0).load(ordering: .relaxed)
    return now == sequence || now == sequence &- 1
  }

  /// Publishes what a write left at the target name and ends it at `sequence`. `state` is
  /// copied when it fits, unless the write announced it; `nil` is `.missing`. (Taken as an
  /// optional and matched on its own, not in a tuple with `identity`: each of those copied the
  /// contents, on every write.)
  func finishWrite(sequence: UInt64, identity: FileIdentity?, state: FileState?) {
    switch state {
    case nil, .missing?:
      word(9).store(1, ordering: .relaxed)
    case .digest?:
      // A write publishes the bytes it wrote, never a digest (knowledge only); were one given,
      // the page would say nothing of the contents.
      assertionFailure("a write publishes the bytes it wrote, not their digest")
      word(9).store(0, ordering: .relaxed)
    case let .contents(contents)?:
      guard let identity else {
        word(9).store(0, ordering: .relaxed)
        break
      }
      for (index, value) in [
        identity.device, identity.inode, UInt64(bitPattern: identity.size),
        UInt64(bitPattern: identity.modificationSeconds), UInt64(bitPattern: identity.modificationNanoseconds),
        UInt64(bitPattern: identity.changeSeconds), UInt64(bitPattern: identity.changeNanoseconds),
      ].enumerated() {
        word(2 + index).store(value, ordering: .relaxed)
      }
      if contents.count <= Self.contentsCapacity {
        // Announced by this very write (sequences are never reused), the bytes are in place.
        let isAnnounced = word(11).load(ordering: .relaxed) == sequence
          && word(14).load(ordering: .relaxed) == UInt64(contents.count)
        if !isAnnounced { copyIntoContents(contents) }
        word(10).store(UInt64(contents.count), ordering: .relaxed)
        word(9).store(2, ordering: .relaxed)
      } else {
        word(9).store(3, ordering: .relaxed)
      }
    }
    word(1).store(sequence, ordering: .relaxed)
    word(0).store(sequence, ordering: .releasing)
  }

  /// Copies `contents` (which fit) to the contents' place. Call it with the sequence odd.
  private func copyIntoContents(_ contents: FileContents) {
    contents.withUnsafeBytes { bytes in
      if let source = bytes.baseAddress { (base + Self.contentsOffset).copyMemory(from: source, byteCount: bytes.count) }
    }
  }

  /// Ends a write that did not finish (it failed before or after the exchange) at `sequence`,
  /// leaving the page describing an older sequence: stale, so that everyone reads the file.
  func abandonWrite(sequence: UInt64) {
    word(0).store(sequence, ordering: .releasing)
  }
}
