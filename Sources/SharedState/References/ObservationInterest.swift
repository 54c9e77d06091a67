import Synchronization

/// Which of a reference's observable properties were ever read through Observation
/// (`ObservationRegistrar.access`). A property never read that way has no observer to tell, and
/// telling the registrar of a change still costs a look-up by key path (hashing it, under the
/// registrar's lock) on every change: a program that follows a key through a publisher, `values`
/// or `observe` pays nothing for Observation.
///
/// A read notes itself before it takes the reference's lock, and a delivery asks after it took
/// that lock: a tracking installed by a read made before a change was committed is told of the
/// change, and a read made after the commit returned the new value already.
struct ObservationInterest: ~Copyable, Sendable {
  /// The observable properties of ``SharedReference``.
  enum Property: UInt8 {
    case value = 1
    case isLoading = 2
    case loadError = 4
    case saveError = 8
  }

  private let readProperties = Atomic<UInt8>(0)

  /// Notes that `property` was read through Observation.
  func noteRead(_ property: Property) {
    // Looked at first: after the first read, a read stores nothing (no cache line bounced
    // between threads that read the value).
    guard readProperties.load(ordering: .relaxed) & property.rawValue == 0 else { return }
    readProperties.bitwiseOr(property.rawValue, ordering: .relaxed)
  }

  /// Whether `property` was ever read through Observation.
  func wasRead(_ property: Property) -> Bool {
    readProperties.load(ordering: .relaxed) & property.rawValue != 0
  }
}
