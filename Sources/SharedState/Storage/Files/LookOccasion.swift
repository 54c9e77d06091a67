/// Why a handle asks whether the file at its name changed: each occasion's policy for the one
/// look (``FreshnessCheck/look(on:at:limit:)``) is written here, and nowhere else.
///
/// | occasion | maps the page | waits for a writer | without a page | kept C string | lock held |
/// |---|---|---|---|---|---|
/// | ``event`` | no | no: it takes what the write announced, if anything | no look | yes | no |
/// | ``delivery`` | yes | no: it takes what the write announced, or reads the file during the write | the lock file's sequence when the path keeps no page, else an empty name only | yes | no |
/// | ``catchUp`` | no | no: it takes what the write announced, if anything | the lock file's sequence (a file known missing and still missing first) | no | no |
/// | ``load`` | no | yes | an empty name only | no | no |
/// | ``lockedRead`` | no | no | the lock file's sequence | no | shared |
/// | ``transaction`` | no | no | the lock file's sequence | yes | exclusive |
enum LookOccasion: Sendable {
  /// An event, on the thread that reads events: as cheap as a look can be, and it never blocks
  /// (that thread reads every file's events).
  case event
  /// The delivery of an event, and the read it prompts, on a delivering thread.
  case delivery
  /// A read that no event prompted: catching up right after watching began, or after events
  /// were lost. It may run for every open file at once (a program may open thousands), so it
  /// maps nothing.
  case catchUp
  /// A read of what the file holds now, whatever the handle knows: the first read, a read after
  /// a time unwatched.
  case load
  /// A read under the shared lock (no cooperating writer is rewriting the target).
  case lockedRead
  /// A transaction's refresh, under the exclusive lock.
  case transaction

  /// Whether the look maps the page when this process has not yet (and the path keeps
  /// descriptors: a path that does not keeps no page between transactions). Only a thread that
  /// delivers pays for it; the reading thread, a catch-up and a load use a page already mapped.
  var mapsPage: Bool { self == .delivery }

  /// Whether a look without a page reads the sequence from the lock file (an `open`, a `pread`,
  /// a `close`; a missing lock file is sequence 0) rather than give up (``Freshness/unlooked``).
  ///
  /// An event's look does only for a handle that has seen no lock file (it knows sequence 0):
  /// most often a default this process just stored without one, whose own rename is the event.
  /// One failed `open` then drops that store on the reading thread, instead of a delivery per
  /// key a program opens.
  ///
  /// - Parameters:
  ///   - pathKeepsPage: Whether the path keeps its page between transactions.
  ///   - knowsNoLockFile: Whether the handle has seen no lock file yet (asked only for an event).
  func readsLockFile(pathKeepsPage: Bool, knowsNoLockFile: () -> Bool) -> Bool {
    switch self {
    case .catchUp: true
    case .delivery: !pathKeepsPage
    case .event: knowsNoLockFile()
    case .load, .lockedRead, .transaction: false
    }
  }

  /// Whether a look that can read no sequence (no page, and no lock file read) still looks up
  /// the target name, to settle a name found empty without any lock: for the reads (a load, a
  /// delivery's), which would otherwise take the lock; not on the reading thread, where such a
  /// look is the delivery's work.
  var looksForEmptyName: Bool { self == .load || self == .delivery }

  /// Whether a write under way gets a moment (about 0.1 ms) to finish before the look judges.
  ///
  /// Not a delivery's: it takes what the write announced once its inode is at the target name
  /// (see ``CoordinationPage/announcement(endingAt:)``), or else reads the file at once (see
  /// ``PathResources/readDuringWrite(at:limit:)``). The event that prompts it comes from the
  /// writer's exchange, a few system calls before that writer finishes the page; with many
  /// watchers woken on two cores, the writer waited behind them all, and each of them yielded to
  /// it, or waited 10 ms for a second look (64 watchers: about one yield per delivery).
  var waitsForWriter: Bool { self == .load }

  /// Whether the target is named through its C string kept for the path (see
  /// ``CompanionPaths/targetForCalls``): for the looks events prompt, which a path that is
  /// watched makes again and again. A load or a catch-up makes none: a program may open
  /// thousands of keys it never writes and never hears of. (An occasion that holds the lock
  /// names the target in the lock file's directory: see ``PathLock/entries``.)
  var usesKeptString: Bool {
    switch self {
    case .event, .delivery: true
    case .catchUp, .load, .lockedRead, .transaction: false
    }
  }

  /// Whether the caller holds the path's lock (shared or exclusive): the sequence is then read
  /// under it, and an odd one is a writer that died mid-write, so the look reports a change
  /// rather than ``Freshness/busy``.
  var holdsLock: Bool { self == .lockedRead || self == .transaction }

  /// Whether a handle that knows the file missing, and finds no file at the name, knows enough
  /// whatever the sequence says (one `fstatat` rather than reading the lock file: a file appears
  /// whole, renamed into place).
  var settlesMissingFirst: Bool { self == .catchUp }
}
