import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

extension FileDescriptor {
  /// Watches `path` for `events` on this inotify descriptor, and returns the watch's descriptor
  /// (the same one again for a path already watched: its events are replaced).
  ///
  /// The corresponding C function is `inotify_add_watch`.
  func addWatch(_ path: FilePath, for events: InotifyEvents) throws(Errno) -> WatchDescriptor {
    let watch = try systemCall { path.withPlatformString { inotify_add_watch(rawValue, $0, events.rawValue) } }
    return WatchDescriptor(rawValue: watch)
  }

  /// Removes a watch from this inotify descriptor.
  ///
  /// The corresponding C function is `inotify_rm_watch` (`EINVAL` for a watch the kernel
  /// already dropped).
  func removeWatch(_ watch: WatchDescriptor) throws(Errno) {
    try systemCall { inotify_rm_watch(rawValue, watch.rawValue) }
  }

  /// Marks the descriptor close-on-exec, so that child processes do not inherit it (for a
  /// descriptor a library opened without `O_CLOEXEC`).
  ///
  /// The corresponding C call is `fcntl(fd, F_SETFD, FD_CLOEXEC)`.
  func setCloseOnExec() throws(Errno) {
    try systemCall { fcntl(rawValue, F_SETFD, FD_CLOEXEC) }
  }
}
