import Dependencies
@testable import SharedState

/// `key` as a `@Shared` takes it in a dependency context with a reference registry of its own:
/// a second call with the same key value makes a second reference, as two parallel tests
/// sharing a `static let` key do.
func sharedInAContextOfItsOwn<Key: SharedKey<Int>>(_ key: Key) -> Shared<Int> {
  withDependencies {
    $0.sharedReferenceRegistry = ReferenceRegistry()
  } operation: {
    Shared(wrappedValue: 0, key)
  }
}
