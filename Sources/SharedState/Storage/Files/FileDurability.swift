/// How far a write to file or app storage goes before it counts as done.
public enum FileDurability: Sendable, Hashable {
  /// The new file replaces the old one atomically, without waiting for the disk: a process that
  /// crashes or is killed never loses or tears a write that has returned, but a power loss or a
  /// kernel crash may lose recent writes. The default.
  case atomic

  /// As ``atomic``, and the file and its directory are flushed to the disk (`fsync`) before the
  /// write returns, so that a returned write survives a power loss. Much slower.
  ///
  /// Other processes see the new value once the file is replaced, as they could read the file
  /// then, and may be told of it while the directory's flush is still under way; the write's
  /// own `withLock` returns after the flush. A directory this process cannot open (one it may
  /// write in but not read) fails each write before the file is replaced. If flushing the
  /// directory fails once the new file is in place, the new value stays (every process reads it)
  /// and the failure is the save error.
  case flushedToDisk
}
