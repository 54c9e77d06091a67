import Foundation
import SystemPackage

/// A transaction on a ``DiskFile``: see ``FileTransaction``. Begun holding the path's exclusive
/// lock, which ``end()`` releases.
final class DiskFileTransaction: FileTransaction {
  private let file: DiskFile
  private var isHeld = true
  /// Whether the locks are released and the handle's deliveries still left to this transaction
  /// (see ``endDeferringDeliveries()``).
  private var isDeferringDeliveries = false
  let change: Result<FileState, any Error>?
  let readFailure: (any Error)?
  /// The entry at the target name, as the refresh or the last commit left it.
  private var target: Result<EntryStatus?, any Error>
  /// Whether a commit wrote.
  private var hasWritten = false

  /// Takes the lock and brings the handle up to date.
  ///
  /// - Throws: Why the lock could not be taken; nothing is held then.
  init(file: DiskFile) throws {
    self.file = file
    let known = file.transactionBeginsKnowing()
    let refresh: PathResources.Refresh
    do {
      refresh = try file.resources.beginTransaction(known, state: { file.known.state }, limit: file.maximumReadSize)
    } catch {
      if file.transactionEnds(hasWritten: false) { file.deliverDeferred() }
      throw error
    }
    let (news, change, target) = refresh.parts()
    if let news { file.remember(news) }
    if case let .failure(error) = change { readFailure = error } else { readFailure = nil }
    self.change = change
    self.target = target
  }

  func commit(_ state: FileState) throws {
    try commit(state, exclusively: false)
  }

  /// Commits `state`; when `exclusively`, only by creating the file (see
  /// ``PathResources/write(_:replacing:durability:exclusively:)``).
  private func commit(_ state: FileState, exclusively: Bool) throws {
    guard isHeld else { throw TransactionEnded(path: file.path) }
    // What could not be read is not written over: it may be a value this process cannot see.
    if let readFailure { throw readFailure }
    let (written, announced, unflushed) = try file.resources.write(
      state, replacing: try target.get(), durability: file.durability, exclusively: exclusively
    )
    // Known as the handle's own before the page says the write is over: a watcher of this
    // process that wakes for the write's events then finds it known, and delivers nothing.
    file.remember(written)
    file.resources.publish(written, announced)
    hasWritten = true
    target = .success(nil)
    try unflushed?.flush()
  }

  func end() {
    guard isHeld else { return }
    isHeld = false
    let mustDeliver = file.transactionEnds(hasWritten: hasWritten)
    file.resources.endTransaction()
    if mustDeliver { file.deliverDeferred() }
  }

  func endDeferringDeliveries() {
    guard isHeld else { return }
    isHeld = false
    file.transactionReleasesLock(hasWritten: hasWritten)
    file.resources.endTransaction()
    isDeferringDeliveries = true
  }

  func resumeDeliveries() {
    guard isDeferringDeliveries else { return }
    isDeferringDeliveries = false
    if file.transactionResumesDeliveries() { file.deliverDeferredHere() }
  }

  deinit {
    end()
    // Dropped before it resumed: what was left to it is delivered on the pool, not in a deinit.
    if isDeferringDeliveries, file.transactionResumesDeliveries() { file.deliverDeferred() }
  }

  /// Commits `contents` when the file holds `expected` (`.missing`: no entry at the target
  /// name), as the transaction's refresh read it; otherwise returns what is there. A file is
  /// created without replacing anything (see ``StoredFile/write(_:ifStillHolding:)``).
  func write(_ contents: FileContents, ifStillHolding expected: FileState) throws -> FileState {
    if case let .failure(error)? = change { throw error }
    // The refresh brought the handle up to date: what it read when the file changed (the
    // bytes), otherwise the handle's knowledge (a digest, for a large file).
    let current: FileState =
      if case .success(nil) = target {
        .missing
      } else if case let .success(changed)? = change {
        changed
      } else {
        file.known.state ?? .missing
      }
    guard current == expected else {
      // The caller decodes what is there: a digest is read back into bytes, under the lock.
      return current.isDigest ? try file.resources.replacement.readTarget(try target.get(), limit: file.maximumReadSize) : current
    }
    try commit(.contents(contents), exclusively: expected == .missing)
    return .contents(contents)
  }
}

/// A transaction whose locks could not be taken: it knows nothing, and commits nothing.
final class FailedTransaction: FileTransaction {
  let error: any Error
  init(error: any Error) { self.error = error }
  var change: Result<FileState, any Error>? { nil }
  var readFailure: (any Error)? { error }
  func commit(_ state: FileState) throws { throw error }
  func end() {}
}

/// The error for a commit after its transaction ended.
struct TransactionEnded: Error, CustomStringConvertible {
  let path: String
  var description: String { "the transaction on \(path) has ended" }
}
