import CGTK

/// What a GTK signal does, as a Swift closure: the handler's user data, through `Unmanaged`
/// (a C callback cannot capture), released by the connection's destroy notify when the widget
/// goes.
final class SignalAction {
  private let action: @MainActor () -> Void

  private init(_ action: @escaping @MainActor () -> Void) {
    self.action = action
  }

  /// Runs `action` each time `instance` emits `signal` (a signal that returns nothing; its
  /// arguments are ignored). GTK emits signals on the main thread, inside the main loop.
  @discardableResult
  static func connect(
    _ instance: UnsafeMutableRawPointer,
    _ signal: String,
    _ action: @escaping @MainActor () -> Void
  ) -> UInt {
    let box = Unmanaged.passRetained(SignalAction(action)).toOpaque()
    return UInt(
      shared_demo_connect(
        instance,
        signal,
        { data in
          let action = Unmanaged<SignalAction>.fromOpaque(data!).takeUnretainedValue().action
          MainActor.assumeIsolated { action() }
        },
        box,
        { data, _ in
          Unmanaged<SignalAction>.fromOpaque(data!).release()
        }
      )
    )
  }
}
