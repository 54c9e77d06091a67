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
    /// What the look made when the last event was admitted (or delivered) found, for the
    /// delivery and the read it prompts (one look per event); `nil` once the read took it.
    var admitted: Freshness?
    /// This handle's transactions begun (waiting for the lock or holding it) and not ended.
    var transactionsUnderWay = 0
    /// Whether a delivery was left to one of them (see ``DiskFile/deferToTransaction()``).
    var hasDeferredDelivery = false
    /// This handle's transactions that released the lock while their caller still holds its own
    /// (see ``DiskFile/transactionReleasesLock(hasWritten:)``).
    var transactionsReleasing = 0
    /// Whether a delivery is to be made once the last of them resumes deliveries: one left to
    /// them, which their refreshes did not take in.
    var hasDeliveryAfterRelease = false
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

  /// The outline of ``known``, taken under the lock without copying the contents.
  private var knownOutline: FileKnowledge.Outline {
    state.withLock { $0.knowledge.outline }
  }

  /// Makes `fresh` the handle's knowledge, large contents as their digest (see
  /// ``FileState/kept``): hashed before the lock is taken.
  func remember(_ fresh: FileKnowledge) {
    // Copied once, into the handle's state: a copy of the knowledge goes through the run time's
    // witnesses (its contents may be a `Data`), on every write.
    guard fresh.holdsLargeContents else { return state.withLock { $0.knowledge = fresh } }
    let kept = fresh.kept
    state.withLock { $0.knowledge = kept }
  }

  /// The one look, on `occasion`, at what this handle knows.
  func look(on occasion: LookOccasion) -> FreshnessCheck.Look {
    resources.freshness.look(on: occasion, at: { knownOutline }, limit: maximumReadSize)
  }

  func read() throws -> FileState {
    let reading = reading(on: .load)
    if let fresh = reading.fresh { remember(fresh) }
    return try reading.found.get() ?? .missing
  }

  func reading(on occasion: LookOccasion) -> FileReading {
    // Each copy of a knowledge goes through the run time's witnesses (its contents may be a
    // `Data`): copied once from the handle's state, and once out of the look that described it.
    var since = FileKnowledge()
    let look: Freshness
    // The sequence of the write under way a delivery's look found (see below).
    var busyAt: UInt64?
    switch occasion {
    case .delivery:
      // What the event's look found, when it found a change: the read looks no further.
      if let change = takeAdmitted(since: &since), change.tellsOfChange(since: since) {
        look = change
      } else {
        // A later write of this handle's own, an event that was not looked at (a write in
        // place, say), a write under way: the file as it is now, whatever the handle knows.
        let now = resources.freshness.look(on: .delivery, at: { FileKnowledge.Outline() }, limit: maximumReadSize)
        look = now.freshness
        if now.freshness.isBusy { busyAt = now.sequence }
      }
    case .catchUp:
      since = known
      look = resources.freshness.look(on: .catchUp, at: { since = known; return since.outline }, limit: maximumReadSize).freshness
    case .load:
      since = known
      look = resources.freshness.look(on: .load, at: { FileKnowledge.Outline() }, limit: maximumReadSize).freshness
    case .event, .lockedRead, .transaction:
      preconditionFailure("a read is made on a delivery, a catch-up or a load")
    }
    let fresh: FileKnowledge
    switch look {
    case .unchanged:
      return FileReading(since: since, fresh: nil, found: .success(nil))
    case let .changed(described?):
      fresh = consume described
    case .changed(nil), .busy, .unlooked:
      do {
        if let busyAt {
          // Another process's write under way, whose exchange raised the event: a delivery
          // reads the file without waiting for that writer to finish the page (or for its lock).
          guard let read = try resources.readDuringWrite(at: busyAt, limit: maximumReadSize) else {
            // Another write began meanwhile: its own event follows.
            return FileReading(since: since, fresh: nil, found: .success(nil))
          }
          fresh = read
        } else {
          fresh = try resources.readLocked(limit: maximumReadSize)
        }
      } catch {
        return FileReading(since: since, fresh: nil, found: .failure(error))
      }
    }
    let isNew = occasion == .load || !fresh.state.isSame(as: since.state)
    let found: Result<FileState?, any Error> = .success(isNew ? fresh.state : nil)
    // Large contents are kept as their digest (see ``FileState/kept``), hashed here, before any
    // lock is taken: the bytes themselves go to the caller only, to decode.
    let kept = fresh.holdsLargeContents ? fresh.kept : consume fresh
    return FileReading(since: consume since, fresh: consume kept, found: found)
  }

  func takeIn(_ reading: FileReading) -> Bool {
    state.withLock { state in
      guard state.knowledge == reading.since else { return false }
      if let fresh = reading.fresh { state.knowledge = fresh }
      return true
    }
  }

  /// Takes what the look made for the last event found, and what the handle knows now (into
  /// `since`, copied there once).
  private func takeAdmitted(since: inout FileKnowledge) -> Freshness? {
    state.withLock { state in
      since = state.knowledge
      // Moved out, not copied and cleared.
      return state.admitted.take()
    }
  }

  /// Whether the delivery of a change made elsewhere can be left to a transaction of this
  /// handle's under way (a `withLock` waiting for the path's lock, or holding it), rather than
  /// wait for the reference's lock, which that `withLock` holds meanwhile: its refresh, made once
  /// it holds the path's lock, takes in every write made before, and it ends before another can
  /// be made. When it does, the delivery is noted: a transaction that ends without writing (the
  /// body changed nothing, or the lock could not be taken) has it made then, on the pool, so that
  /// a file a program that takes no lock renamed in meanwhile is not missed.
  ///
  /// (Waiting for that lock, the reading thread of a process that increments a key, as three
  /// others do, blocked on most changes it delivered, and a standing-by thread took over.)
  ///
  /// A write of the suite's API through another handle counts as such a transaction, from
  /// ``localWriteBegins()`` to ``localWriteEnds()``: its writer delivers what it wrote.
  ///
  /// A transaction that released the path's lock while its caller still holds the reference's
  /// (``transactionReleasesLock(hasWritten:)``) takes deliveries too, without taking them in: it
  /// makes them on its caller's thread when it lets go (``transactionResumesDeliveries()``,
  /// ``deliverDeferredHere()``), rather than the delivering thread waiting for that lock
  /// meanwhile. (Waiting for it there, the reading threads of four processes incrementing one
  /// key slept once for every four writes; handed to the pool instead, the change cost eight
  /// processes more than the wait.)
  func deferToTransaction() -> Bool {
    state.withLock { state in
      if state.transactionsUnderWay > 0 {
        state.hasDeferredDelivery = true
      } else if state.transactionsReleasing > 0 {
        state.hasDeliveryAfterRelease = true
      } else {
        return false
      }
      // What the event's look found is old once the transaction has looked.
      state.admitted = nil
      return true
    }
  }

  /// Counts a transaction of this handle's, from before it waits for the lock.
  func transactionBegins() {
    state.withLock { $0.transactionsUnderWay += 1 }
  }

  /// ``transactionBegins()`` and the outline of ``known`` in one hold of the handle's lock, for a
  /// transaction that is about to wait for the path's lock: its look, once it holds it, starts
  /// from what the handle knew before the wait (one hold fewer per write). The outline only:
  /// copying the whole knowledge (contents included) on every write went through the run
  /// time's generic witnesses.
  func transactionBeginsKnowing() -> FileKnowledge.Outline {
    state.withLock { state in
      state.transactionsUnderWay += 1
      return state.knowledge.outline
    }
  }

  /// Counts a transaction's end, before it releases the lock (a write made after finds no
  /// transaction to defer to).
  ///
  /// - Parameter hasWritten: Whether the transaction wrote: everything before its end was then
  ///   taken in or replaced.
  /// - Returns: Whether a delivery left to the transactions is still to be made: the caller
  ///   makes it with ``deliverDeferred()`` once the lock is released.
  func transactionEnds(hasWritten: Bool) -> Bool {
    state.withLock { state in
      state.noteEnd(hasWritten: hasWritten)
      return state.takeDeliveryAfterRelease()
    }
  }

  /// As ``transactionEnds(hasWritten:)``, for a transaction whose caller still holds a lock of
  /// its own: deliveries are left to it until ``transactionResumesDeliveries()``.
  func transactionReleasesLock(hasWritten: Bool) {
    state.withLock { state in
      state.noteEnd(hasWritten: hasWritten)
      state.transactionsReleasing += 1
    }
  }

  /// A transaction that released its lock no longer takes deliveries.
  ///
  /// - Returns: Whether a delivery left meanwhile is still to be made: the caller makes it with
  ///   ``deliverDeferredHere()`` (or ``deliverDeferred()`` from a deinit).
  func transactionResumesDeliveries() -> Bool {
    state.withLock { state in
      state.transactionsReleasing -= 1
      return state.takeDeliveryAfterRelease()
    }
  }

  /// The suite-API counterpart of a transaction, counted as one: see ``deferToTransaction()``.
  func localWriteBegins() {
    transactionBegins()
  }

  func localWriteEnds() {
    // What the writer delivered was read after every write it could defer: a deferred delivery
    // finds nothing new unless another process wrote since.
    if transactionEnds(hasWritten: false) { deliverDeferred() }
  }

  /// Makes the delivery that ``transactionEnds(hasWritten:)`` said is still to be made.
  ///
  /// As a write in place, the stronger of the two events a deferred delivery may have been for
  /// (it absorbs a replacement): its delivery reads what the file holds now rather than trust the
  /// look an event is admitted by, so a write in place that the deferral passed over is read as
  /// its own event would have had it read.
  func deliverDeferred() {
    DirectoryWatcher.shared.post(.writtenInPlace, toFile: resources.paths.name, in: resources.paths.directory)
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
  func write(_ contents: FileContents, ifStillHolding expected: FileState) throws -> FileState {
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

extension DiskFile.State {
  /// Counts a transaction's end. A delivery left to the transactions is dropped when one of them
  /// wrote (everything before its end was taken in or replaced); left with none under way any
  /// more, it waits for the releasing ones, if any.
  mutating func noteEnd(hasWritten: Bool) {
    transactionsUnderWay -= 1
    if hasWritten { hasDeferredDelivery = false }
    if transactionsUnderWay == 0, hasDeferredDelivery {
      hasDeferredDelivery = false
      hasDeliveryAfterRelease = true
    }
  }

  /// Whether the delivery left to the transactions is now to be made (none under way or
  /// releasing), clearing it.
  mutating func takeDeliveryAfterRelease() -> Bool {
    guard transactionsUnderWay == 0, transactionsReleasing == 0, hasDeliveryAfterRelease else { return false }
    hasDeliveryAfterRelease = false
    return true
  }
}
