import SystemPackage

/// Why libinotifytools could not start.
enum InotifyStartFailure: Error, Equatable, CustomStringConvertible {
  /// The system refused an inotify instance (`EMFILE`: the user's
  /// `fs.inotify.max_user_instances` is reached).
  case system(Errno)
  /// The descriptor is ``LowDescriptorSlot/selectLimit`` or more, which `select()` cannot wait
  /// on.
  case descriptorTooLarge(FileDescriptor)
  /// The library's descriptor could not be told apart (another inotify descriptor was opened
  /// at the same moment); the next try will tell.
  case unidentified

  /// The system's error, when the system refused.
  var errno: Errno? {
    if case let .system(errno) = self { return errno }
    return nil
  }

  var description: String {
    switch self {
    case .system(.tooManyOpenFiles):
      "inotify cannot start: the user's limit of inotify instances (fs.inotify.max_user_instances) is reached"
    case let .system(errno):
      "inotify cannot start: \(errno)"
    case .unidentified:
      "inotify's descriptor could not be told apart from another opened at the same moment"
    case let .descriptorTooLarge(descriptor):
      "inotify's descriptor would be \(descriptor.rawValue), which select() cannot wait on: every descriptor below \(LowDescriptorSlot.selectLimit) is taken"
    }
  }
}
