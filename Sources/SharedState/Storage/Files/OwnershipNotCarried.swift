import SystemPackage

// For the C types of owners, groups and modes (`uid_t`, `gid_t`, `mode_t`) only.
#if canImport(Glibc)
  import Glibc
#endif

/// A file's owner, group and mode: what a write carries over from the file it replaces.
struct Ownership: Equatable {
  var owner: uid_t
  var group: gid_t
  /// The permission bits, with set-user-ID, set-group-ID and sticky (`st_mode & 0o7777`).
  var mode: mode_t

  init(_ status: EntryStatus) {
    owner = status.owner
    group = status.group
    mode = status.mode & 0o7777
  }
}

/// The error for a write that would change who may use the file: the new file cannot have the
/// replaced one's mode, or its owner or group, and someone would lose access. Nothing was
/// written.
///
/// A process cannot give a file away unless it is root, nor give it a group it is not in. That
/// loses nothing when the mode grants everyone else what it grants the owner and the group
/// (`0666`: two users sharing one file), and then the write goes ahead with the writer as owner.
struct OwnershipNotCarried: Error, CustomStringConvertible {
  enum Reason {
    /// The owner cannot be kept, and would lose `lost` (permission bits, as in `rwx`).
    case owner(uid_t, lost: mode_t)
    /// The group cannot be kept, and its members would lose `lost`.
    case group(gid_t, lost: mode_t)
    /// The mode cannot be set on the new file.
    case mode(Errno)
  }

  let reason: Reason
  /// The replaced file's mode.
  let mode: mode_t
  /// The user this process writes as.
  let writer: uid_t

  /// The refusal when writing the new file as `written` would take access away from the owner or
  /// the group `wanted` names; `nil` when nobody loses any.
  init?(wanted: Ownership, writtenAs written: Ownership) {
    let others = wanted.mode & 0o7
    // Root may do anything whatever the mode; anyone else, no longer owner, gets what the mode
    // gives others (membership of the new group cannot be known here).
    let ownerLoss = (wanted.mode >> 6) & 0o7 & ~others
    let groupLoss = (wanted.mode >> 3) & 0o7 & ~others
    if written.owner != wanted.owner, wanted.owner != 0, ownerLoss != 0 {
      self.init(reason: .owner(wanted.owner, lost: ownerLoss), mode: wanted.mode)
    } else if written.group != wanted.group, groupLoss != 0 {
      self.init(reason: .group(wanted.group, lost: groupLoss), mode: wanted.mode)
    } else {
      return nil
    }
  }

  /// The refusal when `mode` cannot be set on the new file.
  init(mode: mode_t, failure: Errno) {
    self.init(reason: .mode(failure), mode: mode)
  }

  private init(reason: Reason, mode: mode_t) {
    self.reason = reason
    self.mode = mode
    writer = ProcessCredentials.user
  }

  var description: String {
    let octal = "0" + String(mode, radix: 8)
    switch reason {
    case let .owner(owner, lost):
      return "its owner, user \(owner), cannot be kept (a process of user \(writer) cannot give a file away), and with mode \(octal) that user would lose \(Self.access(lost)) access; nothing was written"
    case let .group(group, lost):
      return "its group, \(group), cannot be kept (user \(writer) is not a member), and with mode \(octal) the group's members would lose \(Self.access(lost)) access; nothing was written"
    case let .mode(failure):
      return "its mode, \(octal), cannot be given to the new file (\(failure)); nothing was written"
    }
  }

  /// `read and write` for `0o6`.
  private static func access(_ bits: mode_t) -> String {
    let names = [(0o4, "read"), (0o2, "write"), (0o1, "execute")].filter { bits & mode_t($0.0) != 0 }.map(\.1)
    return names.count <= 1 ? names.joined() : names.dropLast().joined(separator: ", ") + " and " + names.last!
  }
}
