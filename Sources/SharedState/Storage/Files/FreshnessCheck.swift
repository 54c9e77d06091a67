import SystemPackage

/// What one look at the coordination page and the target name says of what a handle knows.
enum Freshness: Equatable {
  /// Nothing was written since, and the target name still holds what the handle knows.
  case unchanged
  /// Something changed. `knowledge` is what is at the target now when the page provably says so
  /// (its contents included, within the reader's limit); `nil` when the file must be read.
  /// Indirect: every handle keeps its last look, and most handles of a program that opens
  /// thousands of keys never see a change.
  indirect case changed(FileKnowledge?)
  /// A cooperating write is under way, or began during the look: its own event follows, unless
  /// its writer dies.
  case busy
}

/// The one judgement of a handle's knowledge against the path: used when an event is admitted,
/// when it is delivered, when a handle catches up without an event, when it reads, and when a
/// transaction begins. Each look costs one `fstatat` of the target name and a read of the page.
///
/// The sequence covers cooperating writers, whose exchanges bring inodes back; the identity at
/// the target name covers programs that take no part (see ``FileIdentity``).
struct FreshnessCheck {
  let paths: CompanionPaths

  /// What a look found.
  struct Look {
    let freshness: Freshness
    /// The entry at the target name (`nil`: none), or why it could not be looked up; `nil` when
    /// the look stopped at the page (someone else's write under way).
    let target: Result<EntryStatus?, Errno>?
    /// The sequence the look judged by.
    let sequence: UInt64
  }

  /// Looks at the path once.
  ///
  /// - Parameters:
  ///   - knowledge: What the handle knows, asked after the sequence is read (so that a write of
  ///     this process that just finished counts as known) and again after waiting.
  ///   - sequence: The sequence now (from the page or the lock file).
  ///   - page: The page, when this process has it mapped.
  ///   - waiting: Whether a write under way gets a moment (about 0.1 ms) to finish.
  ///   - limit: The most bytes of contents to take from the page.
  ///   - isLocked: Whether the caller holds the exclusive lock: an odd sequence is then a writer
  ///     that died mid-write, and the look reports a change rather than `.busy`.
  ///   - throughKeptString: Whether the target is named through its C string kept for the
  ///     path: see ``lookUpTarget(throughKeptString:)``.
  func look(
    at knowledge: () -> FileKnowledge,
    sequence: UInt64,
    page: CoordinationPage?,
    waiting: Bool,
    limit: Int,
    isLocked: Bool = false,
    throughKeptString: Bool = false
  ) -> Look {
    let sequence = isLocked ? sequence : settledSequence(sequence, page: page, knowledge: knowledge, waiting: waiting)
    let known = knowledge()
    let isOwnWriteUnderWay = sequence & 1 == 1 && known.sequence == sequence &+ 1
    if sequence & 1 == 1, !isLocked, !isOwnWriteUnderWay, !waiting || page == nil {
      // Someone else's write: its event follows. No need to look at the target.
      return Look(freshness: .busy, target: nil, sequence: sequence)
    }
    let target = lookUpTarget(throughKeptString: throughKeptString)
    guard case let .success(status) = target else { return Look(freshness: .changed(nil), target: target, sequence: sequence) }
    let identity = status?.identity
    let freshness: Freshness
    if isOwnWriteUnderWay {
      // The handle learns of its own write before the page is finished: it holds while the
      // target name holds what that write put there.
      freshness = identity == known.identity ? .unchanged : .changed(nil)
    } else if sequence & 1 == 1, !isLocked {
      freshness = .busy
    } else if known.state != nil, sequence & 1 == 0, sequence == known.sequence, identity == known.identity {
      freshness = .unchanged
    } else if !isLocked, let page, case let now = page.sequence, now != sequence {
      // A write began after the sequence was read, and the entry looked up may be its result,
      // which its own event announces (and a write of this process's own, not yet known): as
      // for any write under way, nothing is read now.
      return Look(freshness: .busy, target: target, sequence: now)
    } else {
      freshness = .changed(described(at: sequence, identity: identity, page: page, limit: limit))
    }
    return Look(freshness: freshness, target: target, sequence: sequence)
  }

  /// The sequence once a write under way (not the handle's own) has had its moment to finish.
  private func settledSequence(
    _ sequence: UInt64, page: CoordinationPage?, knowledge: () -> FileKnowledge, waiting: Bool
  ) -> UInt64 {
    guard waiting, let page else { return sequence }
    // The exchange raises the event a few system calls before the writer finishes the page.
    var current = sequence
    for attempt in 0..<6 where current & 1 == 1 && knowledge().sequence != current &+ 1 {
      ThreadPause.awaitingWriter(attempt: attempt)
      current = page.sequence
    }
    return current
  }

  /// What the page says is at the target name, when it describes the write that made `sequence`
  /// and the entry found there now.
  private func described(at sequence: UInt64, identity: FileIdentity?, page: CoordinationPage?, limit: Int) -> FileKnowledge? {
    // The snapshot's sequence equal to the one judged by: no write began since, so the entry
    // looked up in between is the one that write left.
    guard sequence & 1 == 0, let page,
      let snapshot = page.snapshot(includingContents: true, attempts: 1),
      snapshot.sequence == sequence, let description = snapshot.description,
      description.identity == identity, let state = description.state, state.fits(limit)
    else { return nil }
    return FileKnowledge(sequence: sequence, identity: identity, state: state)
  }

  /// The entry at the target name (`nil`: none), or the error looking it up. One `fstatat`.
  ///
  /// - Parameter throughKeptString: Whether to name the target through its C string, made once
  ///   and kept (see ``CompanionPaths/targetForCalls``): for transactions and for the looks an
  ///   event prompts, which a path that is written or watched makes again and again. A load
  ///   makes none: a program may open thousands of keys it never writes and never hears of.
  func lookUpTarget(throughKeptString: Bool = false) -> Result<EntryStatus?, Errno> {
    do {
      return .success(
        try throughKeptString ? paths.targetForCalls.entryStatusIfPresent() : paths.target.entryStatusIfPresent()
      )
    } catch {
      return .failure(error)
    }
  }
}

/// What a handle knows of its file: the sequence it last saw, the identity at the target name
/// then, and the contents (`nil` before it read anything).
struct FileKnowledge: Equatable, Sendable {
  var sequence: UInt64 = 0
  var identity: FileIdentity?
  var state: FileState?
}
