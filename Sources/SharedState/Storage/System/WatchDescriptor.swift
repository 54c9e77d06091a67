/// An inotify watch descriptor: the number the kernel gives a watch, and repeats in its events.
struct WatchDescriptor: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
  let rawValue: Int32

  init(rawValue: Int32) {
    self.rawValue = rawValue
  }

  var description: String { "wd \(rawValue)" }
}
