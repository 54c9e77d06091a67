import SystemPackage

/// The descriptors this process has open, as `/proc/self/fd` lists them.
enum OpenDescriptors {
  /// Every inotify descriptor the process has open (libinotifytools does not tell its own).
  ///
  /// The corresponding C functions are `opendir`, `readdir` and `closedir` on `/proc/self/fd`,
  /// then `readlink` on each entry; an entry closed meanwhile is skipped.
  static func inotifyInstances() -> Set<FileDescriptor> {
    let directory = FilePath("/proc/self/fd")
    guard let names = try? directory.directoryEntryNames() else { return [] }
    var found: Set<FileDescriptor> = []
    for name in names {
      let text = String(decoding: name, as: UTF8.self)
      guard let number = Int32(text),
        let target = try? directory.appending(text).symbolicLinkTarget(),
        target == "anon_inode:inotify"
      else { continue }
      found.insert(FileDescriptor(rawValue: number))
    }
    return found
  }
}
