import Observation

/// What Observation sees of a ``SharedReference``: the registrar, and a property for each thing
/// a program can observe (the value, whether it is loading, the errors).
///
/// A class of no generic type, which the reference inherits: the registrar's calls are compiled
/// for one subject type, and the key paths that name the properties are constants. Made on the
/// generic reference, every read of the value or of an error looked up the reference's
/// conformance to `Observable` in the run time, and retained and released a key path made for
/// its value type. (Not `final`: ``SharedReference`` inherits it, and nothing else does.)
class ObservedState: Observable {
  let registrar = ObservationRegistrar()
  /// The properties read through `registrar`: only their changes are announced to it.
  let observationInterest = ObservationInterest()

  // The names Observation tracks. They hold nothing: the reference keeps the values, under its
  // lock.
  var observedValue: Void { () }
  var observedIsLoading: Void { () }
  var observedLoadError: Void { () }
  var observedSaveError: Void { () }

  /// Tells Observation that `property` is being read: a tracking in progress hears of its next
  /// change.
  final func noteAccess(to property: ObservationInterest.Property) {
    observationInterest.noteRead(property)
    registrar.access(self, keyPath: ObservedState.keyPath(of: property))
  }

  /// Tells Observation that `property` changed, when it was ever read through Observation.
  final func announceChange(of property: ObservationInterest.Property) {
    guard observationInterest.wasRead(property) else { return }
    registrar.withMutation(of: self, keyPath: ObservedState.keyPath(of: property)) {}
  }

  private static func keyPath(of property: ObservationInterest.Property) -> KeyPath<ObservedState, Void> {
    switch property {
    case .value: valuePath
    case .isLoading: isLoadingPath
    case .loadError: loadErrorPath
    case .saveError: saveErrorPath
    }
  }

  // Made once: a key path literal is looked up in the run time each time it is evaluated.
  private static let valuePath: KeyPath<ObservedState, Void> & Sendable = \.observedValue
  private static let isLoadingPath: KeyPath<ObservedState, Void> & Sendable = \.observedIsLoading
  private static let loadErrorPath: KeyPath<ObservedState, Void> & Sendable = \.observedLoadError
  private static let saveErrorPath: KeyPath<ObservedState, Void> & Sendable = \.observedSaveError
}
