import Foundation

/// What decided that this process could not open a target for writing: its owner, group and
/// mode, and the file system it is on (a read-only mount refuses whatever the mode). A target
/// that matches them all would be refused again, so a read opens it for reading at once.
///
/// Only a saving: a target that has become writable with none of these changing (a file system
/// remounted read-write, an access control list granted without a mode change) is read all the
/// same, and only its descriptor is not kept for the next write (see ``FileReplacement``).
struct UnwritableTarget {
  private let device: UInt64
  private let owner: uid_t
  private let group: gid_t
  private let mode: mode_t

  init(_ status: EntryStatus) {
    device = status.identity.device
    owner = status.owner
    group = status.group
    mode = status.mode
  }

  /// Whether opening `status`'s file for writing would be refused as the remembered one was.
  func refuses(_ status: EntryStatus) -> Bool {
    status.identity.device == device && status.owner == owner && status.group == group && status.mode == mode
  }
}
