import Foundation
import Synchronization
import SystemPackage

/// A handle on a stored file on disk: what one user (a key's live reference) last read or wrote
/// of it. What the process holds for the path (the lock, the page, the descriptors) is the
/// ``PathResources`` it shares with every other handle on the same path.
///
/// It tells a change made by anyone else from its own write by the sequence and the identity at
/// the target name it recorded, never by timestamps alone: the sequence covers cooperating
/// writers (whose exchanges bring inodes back), the identity covers programs that do not take
/// part.
final class DiskFile: StoredFile, Sendable {
  let resources: PathResources
  let durability: FileDurability
  /// The most bytes a read takes: a longer file is not read (``FileTooLarge``).
  let maximumReadSize: Int
  // A `Mutex` keeps it inline: a program may open thousands of files.
  let state = Mutex(State())

  struct State {
    var knowledge = FileKnowledge()
    /// What the look made when the last event was admitted found, for the delivery and the
    /// read it prompts (one look per event); `nil` when the event was admitted unlooked.
    var admitted: Freshness?
    /// Whether a re-check of a change seen while a write was under way is scheduled.
    var isRecheckScheduled = false
  }

  /// - Parameters:
  ///   - path: An absolute, lexically normal path.
  ///   - durability: How far each write goes before it returns.
  ///   - filePermissions: The permissions of files it creates (less the umask).
  ///   - directoryPermissions: The permissions of directories it creates (less the umask).
  ///   - maximumReadSize: The most bytes a read takes.
  init(
    path: FilePath,
    durability: FileDurability,
    filePermissions: FilePermissions,
    directoryPermissions: FilePermissions,
    maximumReadSize: Int
  ) {
    resources = PathResources.forTarget(path, filePermissions: filePermissions, directoryPermissions: directoryPermissions)
    self.durability = durability
    self.maximumReadSize = maximumReadSize
  }

  deinit {
    resources.release()
  }

  var path: String { resources.paths.target.string }

  var known: FileKnowledge {
    state.withLock { $0.knowledge }
  }

  func remember(_ fresh: FileKnowledge) {
    state.withLock { $0.knowledge = fresh }
  }

  func read() throws -> FileState {
    // At load: the page is used when this process has it already, never mapped for a read alone
    // (a program may open thousands of keys).
    try readAndRemember(mapping: false).state ?? .missing
  }

  func readIfChanged() throws -> FileState? {
    let previous = known.state
    if let looked = takeLookedChange() { return looked.state == previous ? nil : looked.state }
    return try readAgain(since: previous, mapping: true)
  }

  func readIfChangedUnprompted() throws -> FileState? {
    let previous = known.state
    switch lookUnprompted(since: previous) {
    case .unchanged:
      return nil
    case let .changed(described?):
      remember(described)
      return described.state == previous ? nil : described.state
    case .changed(nil), .busy:
      return try readAgain(since: previous, mapping: false)
    }
  }

  func isUnchangedUnprompted() -> Bool {
    lookUnprompted(since: known.state) == .unchanged
  }

  /// The look of ``readIfChangedUnprompted()``: as cheap as it can be, and it maps nothing.
  private func lookUnprompted(since previous: FileState?) -> Freshness {
    // Missing then and now (one `fstatat`): a file appears whole (renamed into place), so there
    // is nothing to read.
    if previous == .missing, case .success(nil) = resources.freshness.lookUpTarget() { return .unchanged }
    // Otherwise one look, the sequence read from the lock file when this process has no page:
    // three or four calls rather than a locked read's eleven, and no page mapped per key.
    let look = resources.lookWithoutLock(
      at: { known }, mapping: false, readingLockFile: true, waiting: false, limit: maximumReadSize
    )
    return look?.freshness ?? .changed(nil)
  }

  /// Reads the file, from the page when it provably describes the target (mapping it first
  /// when `mapping`), otherwise under the shared lock; and remembers what it read.
  private func readAndRemember(mapping: Bool) throws -> FileKnowledge {
    let look = resources.lookWithoutLock(at: { FileKnowledge() }, mapping: mapping, waiting: true, limit: maximumReadSize)
    let fresh: FileKnowledge
    if case let .changed(described?) = look?.freshness {
      fresh = described
    } else {
      fresh = try resources.readLocked(limit: maximumReadSize)
    }
    remember(fresh)
    return fresh
  }

  /// What the file holds now, when it differs from `previous`.
  private func readAgain(since previous: FileState?, mapping: Bool) throws -> FileState? {
    let fresh = try readAndRemember(mapping: mapping)
    return fresh.state == previous ? nil : fresh.state
  }

  /// Takes what the page said when the last event was admitted, and makes it the handle's
  /// knowledge, when it is newer than what the handle knows (a later write of its own, say,
  /// makes it stale: then `nil`).
  private func takeLookedChange() -> FileKnowledge? {
    state.withLock { state in
      defer { state.admitted = nil }
      guard case let .changed(looked?) = state.admitted, looked.sequence > state.knowledge.sequence else { return nil }
      state.knowledge = looked
      return looked
    }
  }

  func beginTransaction() -> any FileTransaction {
    do {
      return try DiskFileTransaction(file: self)
    } catch {
      return FailedTransaction(error: error)
    }
  }

  /// The write a read makes (the placeholder, a stored default): see ``ReadCreation``, which may
  /// refuse it before any lock is taken.
  func write(_ contents: Data, ifStillHolding expected: FileState) throws -> FileState {
    try ReadCreation.check(resources.paths)
    if expected == .missing {
      // No lock file, no scratch file: the file alone, created whole (see `UnlockedCreation`).
      switch resources.createWithoutLock(contents, durability: durability) {
      case let .created(identity):
        remember(FileKnowledge(sequence: 0, identity: identity, state: .contents(contents)))
        return .contents(contents)
      case .exists:
        return try read()
      case .needsLock:
        break
      }
    }
    do {
      let transaction = try DiskFileTransaction(file: self)
      defer { transaction.end() }
      return try transaction.write(contents, ifStillHolding: expected)
    } catch let error as Errno where error == .fileExists {
      // A program that does not take the lock created the file after the look: its file stands.
      return try read()
    }
  }
}
