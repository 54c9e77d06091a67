import SystemPackage

/// What one look at the coordination page and the target name says of what a handle knows.
enum Freshness: Equatable {
  /// Nothing was written since, and the target name still holds what the handle knows.
  case unchanged
  /// Something changed. `knowledge` is what is at the target now when the page provably says so
  /// (its contents included, within the reader's limit), or when no file is there; `nil` when
  /// the file must be read.
  /// Indirect: every handle keeps its last look, and most handles of a program that opens
  /// thousands of keys never see a change.
  indirect case changed(FileKnowledge?)
  /// A cooperating write is under way, or began during the look: its own event follows, unless
  /// its writer dies.
  case busy
  /// No look was made: this process has no page, and the occasion may neither map it nor read
  /// the lock file (see ``LookOccasion``).
  case unlooked

  /// Whether this is ``unchanged``: a pattern, not `==` (see `FileState`'s `==`).
  var isUnchanged: Bool {
    if case .unchanged = self { true } else { false }
  }

  /// Whether this is ``busy``.
  var isBusy: Bool {
    if case .busy = self { true } else { false }
  }

  /// Whether this verdict, kept from an event's look, tells a handle that now knows `known` of
  /// a change: one the page described beyond what the handle knows, or one to read.
  func tellsOfChange(since known: FileKnowledge) -> Bool {
    switch self {
    case let .changed(described?): described.sequence > known.sequence
    case .changed(nil): true
    case .unchanged, .busy, .unlooked: false
    }
  }
}

/// The one judgement of a handle's knowledge against the path, for every occasion that asks it
/// (``LookOccasion``: an event, its delivery, a catch-up, a load, a locked read, a transaction).
/// Each look costs at most one `fstatat` of the target name and a read of the page (or of the
/// lock file's sequence).
///
/// The sequence covers cooperating writers, whose exchanges bring inodes back; the identity at
/// the target name covers programs that take no part (see ``FileIdentity``).
struct FreshnessCheck {
  let paths: CompanionPaths
  let lock: PathLock
  /// Whether the path keeps its page between transactions (see ``PathResources/keepsDescriptors``).
  let pathKeepsPage: Bool

  /// What a look found.
  struct Look {
    let freshness: Freshness
    /// The entry at the target name (`nil`: none), or why it could not be looked up; `nil` when
    /// the look did not get that far (someone else's write under way, or no look made).
    let target: Result<EntryStatus?, Errno>?
    /// The sequence the look judged by.
    let sequence: UInt64
  }

  /// Looks at the path once, as `occasion` allows.
  ///
  /// - Parameters:
  ///   - occasion: Why the handle asks: it decides whether the page is mapped, the lock file
  ///     read, a writer waited for (see ``LookOccasion``).
  ///   - knowledge: The outline of what the handle knows, asked after the sequence is read (so
  ///     that a write of this process that just finished counts as known) and again after
  ///     waiting. A read of what is there now, whatever the handle knows, passes the outline of
  ///     an empty ``FileKnowledge``.
  ///   - limit: The most bytes of contents to take from the page.
  func look(on occasion: LookOccasion, at knowledge: () -> FileKnowledge.Outline, limit: Int) -> Look {
    if occasion.settlesMissingFirst, case let known = knowledge(), known.isMissing,
      case .success(nil) = lookUpTarget(on: occasion)
    {
      return Look(freshness: .unchanged, target: .success(nil), sequence: known.sequence)
    }
    let page: CoordinationPage?
    let sequence: UInt64
    if occasion.holdsLock {
      page = lock.page(mapping: false)
      // From the page when it is mapped (the page asked once), else from the lock file.
      sequence = page?.sequence ?? lock.lockedSequence()
    } else {
      // A path without a place in the descriptor budget keeps no page between transactions (an
      // idle key holds no memory): it reads the sequence from the lock file instead of mapping.
      page = lock.page(mapping: occasion.mapsPage && pathKeepsPage)
      if let page {
        sequence = page.sequence
      } else if occasion.readsLockFile(pathKeepsPage: pathKeepsPage, knowsNoLockFile: { knowledge().sequence == 0 }),
        let stored = try? lock.unlockedSequence()
      {
        sequence = stored
      } else if occasion.looksForEmptyName {
        return lookForEmptyName(knowledge, on: occasion)
      } else {
        return Look(freshness: .unlooked, target: nil, sequence: 0)
      }
    }
    return judge(knowledge, sequence: sequence, page: page, on: occasion, limit: limit)
  }

  /// The verdict, once the sequence is read.
  private func judge(
    _ knowledge: () -> FileKnowledge.Outline, sequence: UInt64, page: CoordinationPage?, on occasion: LookOccasion, limit: Int
  ) -> Look {
    let isLocked = occasion.holdsLock
    let waiting = occasion.waitsForWriter
    let sequence = isLocked ? sequence : settledSequence(sequence, page: page, knowledge: knowledge, waiting: waiting)
    let known = knowledge()
    let isOwnWriteUnderWay = sequence & 1 == 1 && known.sequence == sequence &+ 1
    if sequence & 1 == 1, !isLocked, !isOwnWriteUnderWay, !waiting || page == nil {
      // Someone else's write: its event follows, unless the write announced what it writes and
      // has made its exchange (whose event most often is the one being judged).
      if let page, let announced = takeAnnounced(page: page, sequence: sequence, known: known, on: occasion, limit: limit) {
        return announced
      }
      return Look(freshness: .busy, target: nil, sequence: sequence)
    }
    let target = lookUpTarget(on: occasion)
    guard case let .success(status) = target else { return Look(freshness: .changed(nil), target: target, sequence: sequence) }
    let identity = status?.identity
    let freshness: Freshness
    if isOwnWriteUnderWay {
      // The handle learns of its own write before the page is finished: it holds while the
      // target name holds what that write put there.
      freshness = identity == known.identity ? .unchanged : .changed(nil)
    } else if sequence & 1 == 1, !isLocked {
      freshness = .busy
    } else if known.hasState, sequence & 1 == 0, sequence == known.sequence, identity == known.identity {
      freshness = .unchanged
    } else if !isLocked, known.hasState, known.sequence & 1 == 1, sequence == known.sequence &+ 1,
      identity == known.identity
    {
      // Known while that write was under way (from its announcement, or read during it): it has
      // finished since, no other began, and the name still holds the inode known then. (Most
      // often the exchange's last events, read after the delivery of its first.)
      freshness = .unchanged
    } else if !isLocked, let page, case let now = page.sequence, now != sequence {
      // A write began after the sequence was read, and the entry looked up may be its result,
      // which its own event announces (and a write of this process's own, not yet known): as
      // for any write under way, nothing is read now.
      return Look(freshness: .busy, target: target, sequence: now)
    } else if status == nil, sequence & 1 == 0 {
      // No file at the name, and no write under way: nothing to read. No writer of the protocol
      // leaves the name empty for a moment (it exchanges, renames a new file in, or removes the
      // old), so a name found empty was empty at that instant.
      freshness = .changed(FileKnowledge(sequence: sequence, identity: nil, state: .missing))
    } else {
      freshness = .changed(described(at: sequence, identity: identity, page: page, limit: limit))
    }
    return Look(freshness: freshness, target: target, sequence: sequence)
  }

  /// What the write under way (the sequence odd at `sequence`) left at the target name, when it
  /// announced its inode and contents on the page and that inode is at the target name now:
  /// the exchange is made, and the inode holds those contents until two writes later (see
  /// ``CoordinationPage/announcement(endingAt:)``). One `fstatat` and a copy from the page,
  /// where reading the file would take an `open`, an `fstat`, a `read` and a `close`; `nil` when
  /// the write announced nothing, has not made its exchange, or another write began.
  ///
  /// A handle that took the announcement already (it knows `sequence`, and the same identity at
  /// the name) gets ``Freshness/unchanged``.
  private func takeAnnounced(
    page: CoordinationPage, sequence: UInt64, known: FileKnowledge.Outline, on occasion: LookOccasion, limit: Int
  ) -> Look? {
    let ending = sequence &+ 1
    guard let announced = page.announcement(endingAt: ending), announced.count <= limit,
      case let .success(status?) = lookUpTarget(on: occasion), status.type == .regular,
      status.device == announced.device, status.inode == announced.inode,
      status.size == Int64(announced.count)
    else { return nil }
    // Taken already (an exchange raises two events, the second often read after the first was
    // delivered): nothing to copy.
    if known.hasState, known.sequence == sequence, known.identity == status.identity {
      return page.isUnderWayOrFinished(endingAt: ending)
        ? Look(freshness: .unchanged, target: .success(status), sequence: sequence) : nil
    }
    let contents = page.announcedContents(announced)
    guard page.isUnderWayOrFinished(endingAt: ending) else { return nil }
    let found = FileKnowledge(sequence: sequence, identity: status.identity, state: .contents(contents))
    return Look(freshness: .changed(found), target: .success(status), sequence: sequence)
  }

  /// Without a sequence, one `fstatat` still settles a name found empty: no writer of the
  /// protocol leaves it empty for a moment, so it was empty at that instant (most keys a program
  /// opens have never been written, and this spares each the lock file's open and lock).
  private func lookForEmptyName(_ knowledge: () -> FileKnowledge.Outline, on occasion: LookOccasion) -> Look {
    let target = lookUpTarget(on: occasion)
    guard case .success(nil) = target else { return Look(freshness: .unlooked, target: target, sequence: 0) }
    let known = knowledge()
    let freshness: Freshness = known.isMissing ? .unchanged : .changed(FileKnowledge(state: .missing))
    return Look(freshness: freshness, target: target, sequence: known.sequence)
  }

  /// The sequence once a write under way (not the handle's own) has had its moment to finish.
  private func settledSequence(
    _ sequence: UInt64, page: CoordinationPage?, knowledge: () -> FileKnowledge.Outline, waiting: Bool
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
    // The page still at the sequence judged by: no write began since, so the entry looked up in
    // between is the one that write left.
    guard let page, let state = page.state(describing: sequence, identity: identity, limit: limit) else { return nil }
    return FileKnowledge(sequence: sequence, identity: identity, state: state)
  }

  /// The entry at the target name (`nil`: none), or the error looking it up. One `fstatat`,
  /// naming the target through its kept C string when the occasion does (see
  /// ``LookOccasion/usesKeptString``).
  private func lookUpTarget(on occasion: LookOccasion) -> Result<EntryStatus?, Errno> {
    do {
      if occasion.holdsLock {
        let names = lock.entries
        return .success(try names.target.entryStatusIfPresent(in: names.directory))
      }
      return .success(
        try occasion.usesKeptString ? paths.targetForCalls.cPath.entryStatusIfPresent() : paths.target.entryStatusIfPresent()
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

  /// Field by field, the states without `Optional`'s `==` (see `FileState`'s `==`).
  static func == (lhs: FileKnowledge, rhs: FileKnowledge) -> Bool {
    lhs.sequence == rhs.sequence && lhs.identity == rhs.identity && lhs.state.isSame(as: rhs.state)
  }

  /// All a look judges by (``FreshnessCheck/look(on:at:limit:)``): the knowledge without its
  /// contents, so that asking it copies, retains and releases nothing. (Copies of the whole
  /// knowledge were 2–3 % of a watching process's user time per change, most of it in the run
  /// time's generic witnesses the optimizer's merged functions call.)
  struct Outline {
    var sequence: UInt64 = 0
    var identity: FileIdentity?
    /// Whether the handle knows any state of the file (it has read it, or found none).
    var hasState = false
    /// Whether what it knows is that no file is there.
    var isMissing = false
  }

  /// This knowledge's ``Outline``.
  var outline: Outline {
    // Switched on where it lies: `state != nil` copied the whole knowledge, through the run
    // time's witnesses (its contents may be a `Data`), on every transaction.
    switch state {
    case .none: Outline(sequence: sequence, identity: identity, hasState: false, isMissing: false)
    case .missing?: Outline(sequence: sequence, identity: identity, hasState: true, isMissing: true)
    case .contents?, .digest?: Outline(sequence: sequence, identity: identity, hasState: true, isMissing: false)
    }
  }
}
