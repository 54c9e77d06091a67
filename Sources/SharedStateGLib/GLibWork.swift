/// One piece of work handed to a GLib source as its user data, through `Unmanaged`: a C
/// callback cannot capture, so the closure travels in this box, which the source's destroy
/// notify releases.
final class GLibWork: Sendable {
  private let work: @Sendable () -> Void

  init(_ work: @escaping @Sendable () -> Void) {
    self.work = work
  }

  func run() {
    work()
  }
}
