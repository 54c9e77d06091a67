import Foundation
import Synchronization
import SystemPackage

/// A handle on a stored file on disk: what one user (a key's live reference) last read or wrote
/// of it. The process-wide machinery for the path (locks, the coordination page, descriptors) is
/// the ``DiskPath`` it shares with every other handle on the same path.
///
/// It tells a change made by anyone else from its own write by the sequence and the identity at
/// the target name it recorded, never by timestamps alone: the sequence covers cooperating
/// writers (whose exchanges bring inodes back), the identity covers programs that do not take
/// part.
///
final class DiskFile: StoredFile, Sendable {
  fileprivate let disk: DiskPath
  fileprivate let durability: FileDurability
  /// The most bytes a read takes: a longer file is not read (``FileTooLarge``).
  fileprivate let maximumReadSize: Int
  // A `Mutex` keeps it inline: a program may open thousands of files.
  private let state = Mutex(State())

  private struct State {
    var knowledge = FileKnowledge()
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
    disk = DiskPath.forTarget(path, filePermissions: filePermissions, directoryPermissions: directoryPermissions)
    self.durability = durability
    self.maximumReadSize = maximumReadSize
  }

  deinit {
    disk.release()
  }

  var path: String { disk.paths.target.string }

  fileprivate var known: FileKnowledge {
    state.withLock { $0.knowledge }
  }

  fileprivate func remember(_ fresh: FileKnowledge) {
    state.withLock { $0.knowledge = fresh }
  }

  func read() throws -> FileState {
    // At load: the page is used when this process has it already, never mapped for a read alone
    // (a program may open thousands of keys).
    try readAndRemember(mapping: false).state ?? .missing
  }

  func readIfChanged() throws -> FileState? {
    try readAgain(since: known.state, mapping: true)
  }

  func readIfChangedUnprompted() throws -> FileState? {
    let previous = known.state
    // Missing then and now (one `fstatat`): a file appears whole (renamed into place), so there
    // is nothing to read.
    if previous == .missing, case .success(nil) = disk.lookUpTarget() { return nil }
    // Otherwise the sequence and the identity, without the lock or the file (three or four
    // calls rather than eleven).
    if disk.isProvablyUnchanged(since: known) { return nil }
    // Not `readIfChanged()`: that maps the page, a page per key for a program that opens many.
    return try readAgain(since: previous, mapping: false)
  }

  /// Reads the file, from the page when it provably describes the target (mapping it first
  /// when `mapping`), otherwise under the shared lock; and remembers what it read.
  private func readAndRemember(mapping: Bool) throws -> FileKnowledge {
    let fresh = try disk.readFromPage(mapping: mapping, limit: maximumReadSize)
      ?? disk.readLocked(limit: maximumReadSize)
    remember(fresh)
    return fresh
  }

  /// What the file holds now, when it differs from `previous`.
  private func readAgain(since previous: FileState?, mapping: Bool) throws -> FileState? {
    let fresh = try readAndRemember(mapping: mapping)
    return fresh.state == previous ? nil : fresh.state
  }

  func beginTransaction() -> any FileTransaction {
    DiskFileTransaction(file: self)
  }

  func watch(_ onEvent: @escaping @Sendable (FileWatchEvent) -> Void) -> WatchToken {
    // Strong, not weak (see DiskPath's registry): the token's owner decides how long the
    // handle lives, and the handle holds nothing that leads back to the token.
    DirectoryWatcher.shared.watch(file: disk.paths.target, admitting: { [self] event in
      // Judged on the thread that read the event, cheaply and without waiting: most
      // replacements are this process's own writes or ones the page already showed, and
      // dropped there they wake no other thread. A key whose page is not mapped yet is
      // admitted: mapping it is the delivering thread's work, not the reading's.
      event != .replaced || disk.check({ known }, waiting: false, mapping: false) != .unchanged
    }) { [self] event in
      // Most replacements are this process's own writes, or ones the page already showed.
      if event == .replaced { judge(onEvent) } else { onEvent(event) }
    }
  }

}

extension DiskFile {
  /// Tells `onEvent` of a replacement unless it is this handle's own write or one it already
  /// knows (most are), judged from the page without opening anything or taking a lock.
  ///
  /// While another process's write is under way its own event follows, so nothing is delivered
  /// now (a watcher reading then would wait for that writer): the change is re-checked a little
  /// later instead, in case that writer died mid-write.
  fileprivate func judge(_ onEvent: @escaping @Sendable (FileWatchEvent) -> Void) {
    switch disk.check({ known }) {
    case .unchanged:
      break
    case .changed:
      onEvent(.replaced)
    case .busy:
      let isScheduled = state.withLock { state in
        defer { state.isRecheckScheduled = true }
        return state.isRecheckScheduled
      }
      if isScheduled { return }
      DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(10)) { [self] in
        state.withLock { $0.isRecheckScheduled = false }
        if disk.check({ known }) != .unchanged { onEvent(.replaced) }
      }
    }
  }
}

/// A transaction on a ``DiskFile``: see ``FileTransaction``.
private final class DiskFileTransaction: FileTransaction {
  private let file: DiskFile
  /// Why the locks could not be taken; `nil` once they are.
  private let beginError: (any Error)?
  private var isHeld: Bool
  let change: Result<FileState, any Error>?
  let readFailure: (any Error)?
  /// The entry at the target name, as the last refresh or commit left it.
  private var target: Result<Stat?, any Error>

  init(file: DiskFile) {
    self.file = file
    do {
      try file.disk.lockExclusively()
    } catch {
      beginError = error
      isHeld = false
      // Without the lock the write will fail; there is nothing to refresh for it.
      change = nil
      readFailure = error
      target = .failure(error)
      return
    }
    beginError = nil
    isHeld = true
    let refresh = file.disk.refresh(file.known, limit: file.maximumReadSize)
    file.remember(refresh.knowledge)
    change = refresh.change
    if case let .failure(error) = refresh.change { readFailure = error } else { readFailure = nil }
    target = refresh.target
  }

  func commit(_ state: FileState) throws {
    guard isHeld else { throw beginError ?? TransactionEnded(path: file.path) }
    // What could not be read is not written over: it may be a value this process cannot see.
    if let readFailure { throw readFailure }
    let existing = try target.get()
    try file.disk.write(
      state,
      replacing: existing,
      durability: file.durability,
      record: { [file] written in file.remember(written) }
    )
    target = .success(nil)
  }

  func end() {
    guard isHeld else { return }
    isHeld = false
    file.disk.unlockExclusively()
  }

  deinit {
    end()
  }
}

/// The error for a commit after its transaction ended.
struct TransactionEnded: Error, CustomStringConvertible {
  let path: String
  var description: String { "the transaction on \(path) has ended" }
}

extension DiskFile {
  func createIfMissing(_ contents: Data) throws -> FileState {
    let transaction = DiskFileTransaction(file: self)
    defer { transaction.end() }
    return try transaction.createIfMissing(contents)
  }
}

extension DiskFileTransaction {
  /// Commits `contents` when the lock holder finds no entry at the target name; otherwise
  /// returns what is there, as the transaction's refresh read it.
  fileprivate func createIfMissing(_ contents: Data) throws -> FileState {
    if let beginError { throw beginError }
    if case let .failure(error)? = change { throw error }
    guard case .success(nil) = target else {
      // The refresh brought the handle up to date: its knowledge is what the file holds.
      return file.known.state ?? .missing
    }
    try commit(.contents(contents))
    return .contents(contents)
  }
}
