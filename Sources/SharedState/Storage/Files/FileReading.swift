/// What a handle's read found, before the handle takes it in: read with no lock of the caller's
/// held, and taken in (``StoredFile/takeIn(_:)``) under the caller's lock, together with the
/// value it gives, only if the handle still knows what it knew when the read began. So a read
/// that a write of this process overtook is never taken for news, and what the handle knows
/// always matches what its caller holds.
struct FileReading: Sendable {
  /// What the handle knew when the read began.
  let since: FileKnowledge
  /// What the handle knows once it takes this in; `nil`: nothing more than `since`.
  let fresh: FileKnowledge?
  /// What to deliver: the file's state (on a change, or always for a ``LookOccasion/load``),
  /// `nil` when nothing changed, or why it could not be read.
  let found: Result<FileState?, any Error>

  /// A reading that found nothing new to know or deliver: it needs no taking in.
  ///
  /// Stored, not computed: asked of a reading, `fresh == nil` copied the knowledge and
  /// destroyed the copy through a function the optimizer merged with others of its layout,
  /// which goes through the run time's generic witnesses (once per delivery).
  let isNothingNew: Bool

  init(since: FileKnowledge, fresh: FileKnowledge?, found: Result<FileState?, any Error>) {
    if case .none = fresh, case .success(.none) = found {
      isNothingNew = true
    } else {
      isNothingNew = false
    }
    self.since = since
    self.fresh = fresh
    self.found = found
  }
}
