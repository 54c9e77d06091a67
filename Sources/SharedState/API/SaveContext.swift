/// Why a key is asked to save its value.
public enum SaveContext: Hashable, Sendable {
  /// The value was just changed through ``Shared/withLock(_:)``.
  case didSet

  /// The program called ``Shared/save()``.
  case userInitiated
}
