import Foundation
import SystemPackage

/// The path's three operations as a handle uses them: a look without any lock, a read under the
/// shared lock, and a transaction (the exclusive lock, a refresh, a write, the unlock). Each goes
/// down to the system once and returns what it found or did.
extension PathResources {
  /// What a transaction or a locked read found.
  struct Refresh {
    /// What the handle knows now, when it is other than what it knew; `nil` otherwise: most
    /// transactions find the file as the handle left it, and have nothing to remember.
    let news: FileKnowledge?
    /// What changed since the handle's knowledge, `nil` when nothing did.
    let change: Result<FileState, any Error>?
    /// The entry at the target name (`nil`: none), or why it cannot be replaced.
    let target: Result<EntryStatus?, any Error>

    /// The three parts, moved out rather than copied (a copy of each goes through outlined
    /// copies of its enums, on every write).
    consuming func parts() -> (news: FileKnowledge?, change: Result<FileState, any Error>?, target: Result<EntryStatus?, any Error>) {
      (news, change, target)
    }
  }

  /// Reads the target under the shared lock, so that no cooperating writer is rewriting it. Call
  /// it when a look (``FreshnessCheck/look(on:at:limit:)``) found a change it could not describe:
  /// a name the look found empty needs no lock, and the look says so itself.
  ///
  /// - Throws: ``FileTooLarge`` when the target is longer than `limit` bytes (nothing is read),
  ///   a ``RefusedEntry``, or the system's error.
  func readLocked(limit: Int) throws -> FileKnowledge {
    try lock.withSharedLock(keepingOpen: keepsDescriptors) {
      defer { closeDescriptorsUnlessKept() }
      let refresh = refreshHoldingLock(FileKnowledge.Outline(), state: { nil }, limit: limit, on: .lockedRead)
      if case let .failure(error)? = refresh.change { throw error }
      let knowledge = refresh.news ?? FileKnowledge()
      return (knowledge, knowledge.state.isMissing)
    }
  }

  /// Reads the target without any lock while another process's write is under way, the page's
  /// sequence odd at `sequence`: on a delivery, which should not wait for that writer.
  ///
  /// Whole by the protocol: a writer writes only the scratch file, and exchanges it whole into
  /// place; the inode it exchanges out, the one a reader may have opened, is written again only
  /// by the next write, which begins by making the sequence odd again (`sequence + 2`). So the
  /// read stands when the sequence is still `sequence`, or `sequence + 1` (that write finished),
  /// after it, and is dropped otherwise (the next write's event follows).
  ///
  /// - Returns: What is at the target, known at `sequence`; `nil` when another write began.
  /// - Throws: ``FileTooLarge`` when the target is longer than `limit` bytes, a
  ///   ``RefusedEntry``, or the system's error.
  func readDuringWrite(at sequence: UInt64, limit: Int) throws -> FileKnowledge? {
    let identity: FileIdentity?
    let state: FileState
    do {
      let opened = try RegularFile.open(paths.target, writable: false)
      defer { opened.descriptor.closeIgnoringFailure() }
      state = .contents(try FileReplacement.readWhole(opened.descriptor, size: opened.status.size, limit: limit))
      identity = opened.status.identity
    } catch let error as Errno where error == .noSuchFileOrDirectory {
      (identity, state) = (nil, .missing)
    }
    // Read where the look read it: the mapped page, or the lock file of a path that keeps none.
    let now = lock.page(mapping: false)?.sequence ?? (try? lock.unlockedSequence())
    guard let now, now == sequence || now == sequence &+ 1 else { return nil }
    return FileKnowledge(sequence: sequence, identity: identity, state: state)
  }

  /// Takes the exclusive lock and brings what the handle knows up to date, reading at most
  /// `limit` bytes.
  ///
  /// - Parameters:
  ///   - known: The outline of what the handle knows.
  ///   - knownState: The state it knows, asked only when the file changed.
  /// - Throws: Why the lock could not be taken; nothing is held then.
  func beginTransaction(_ known: FileKnowledge.Outline, state knownState: () -> FileState?, limit: Int) throws -> Refresh {
    try lock.lockExclusively()
    return refreshHoldingLock(known, state: knownState, limit: limit, on: .transaction)
  }

  /// Releases the exclusive lock; a path without a place in the descriptor budget lets its page
  /// go as well (unmapped once no look still holds it).
  func endTransaction() {
    closeDescriptorsUnlessKept()
    if !keepsDescriptors { forgetPage() }
    lock.unlock(keepingOpen: keepsDescriptors)
  }

  /// Brings what the handle knows (`known`, its outline) up to date. Call holding a lock: the
  /// shared one `on` ``LookOccasion/lockedRead``, the exclusive one `on`
  /// ``LookOccasion/transaction``.
  ///
  /// Judged by the outline, and the state (`knownState`) asked only when the file changed: a
  /// write that finds the file as its handle left it copies nothing the handle knows.
  private func refreshHoldingLock(
    _ known: FileKnowledge.Outline, state knownState: () -> FileState?, limit: Int, on occasion: LookOccasion
  ) -> Refresh {
    let look = freshness.look(on: occasion, at: { known }, limit: limit)
    let status: EntryStatus?
    do {
      // Under the lock the look always goes as far as the target name. (Not
      // `look.target?.get() ?? …`: a look that found no file would be made twice.)
      if let target = look.target {
        status = try target.get()
      } else {
        let names = lock.entries
        status = try names.target.entryStatusIfPresent(in: names.directory)
      }
      if let status, let refusal = RefusedEntry(path: paths.target, type: status.type) { throw refusal }
    } catch {
      return Refresh(news: nil, change: .failure(error), target: .failure(error))
    }
    let fresh: FileKnowledge
    switch look.freshness {
    case .unchanged:
      return Refresh(news: nil, change: nil, target: .success(status))
    case let .changed(described?):
      fresh = described
    case .changed(nil), .busy, .unlooked:
      do {
        let state = try replacement.readTarget(status, limit: limit)
        fresh = FileKnowledge(sequence: look.sequence, identity: status?.identity, state: state)
      } catch {
        return Refresh(news: nil, change: .failure(error), target: .success(status))
      }
    }
    let change = fresh.state.isSame(as: knownState()) ? nil : fresh.state.map { Result<FileState, any Error>.success($0) }
    return Refresh(news: fresh, change: change, target: .success(status))
  }

  /// Replaces what the target holds with `state` (`.missing` removes it). Call holding the
  /// exclusive lock. Everything that can fail is checked before the write is announced.
  ///
  /// - Parameters:
  ///   - target: The entry at the target name that the transaction found: the new file gets its
  ///     mode, owner and group.
  ///   - exclusively: Whether the contents may only create a file, never replace one (see
  ///     ``FileReplacement/replaceTarget(with:scratch:durability:closingEachTime:exclusively:)``).
  /// - Returns: What the writer knows now, the announced write, and the directory still to be
  ///   flushed when `durability` asks for it: the caller records the knowledge as its own, calls
  ///   ``publish(_:_:)``, then flushes the directory (see ``DirectoryFlush``).
  func write(
    _ state: FileState,
    replacing target: EntryStatus?,
    durability: FileDurability,
    exclusively: Bool = false
  ) throws -> (written: FileKnowledge, announced: PathLock.AnnouncedWrite, unflushed: DirectoryFlush?) {
    // A digest is what a handle keeps to compare with: written, it would remove the file.
    precondition(!state.isDigest, "a digest is never written")
    if let target, let refusal = RefusedEntry(path: paths.target, replacing: target) { throw refusal }
    let scratch: OpenInode?
    if case .contents = state { scratch = try replacement.prepareScratch(like: target) } else { scratch = nil }
    let directory = durability == .flushedToDisk ? try DirectoryFlush(opening: paths.directory, in: lock.entries) : nil
    let announced: PathLock.AnnouncedWrite
    do {
      announced = try lock.announceWrite()
    } catch {
      directory?.close()
      throw error
    }
    do {
      var identity: FileIdentity?
      if case let .contents(contents) = state, let scratch {
        lock.announce(announced, exchanging: scratch, holding: contents)
        identity = try replacement.replaceTarget(
          with: contents, scratch: scratch, durability: durability, closingEachTime: lock.isOnNetwork,
          exclusively: exclusively
        )
      } else {
        try replacement.removeTarget()
      }
      try lock.prepareToPublish(announced)
      return (FileKnowledge(sequence: announced.sequence, identity: identity, state: state), announced, directory)
    } catch {
      lock.abandon(announced)
      directory?.close()
      throw error
    }
  }

  /// Ends a write that ``write(_:replacing:durability:)`` made: the page describes it and the
  /// sequence turns even.
  func publish(_ written: FileKnowledge, _ announced: PathLock.AnnouncedWrite) {
    lock.publish(announced, identity: written.identity, state: written.state)
  }

  /// Lets the page go, to be mapped again by the next transaction. Call holding the lock.
  private func forgetPage() {
    lock.pageState.withLock { $0 = PathLock.PageState() }
  }

  private func closeDescriptorsUnlessKept() {
    if !keepsDescriptors { replacement.closeDescriptors() }
  }
}
