import Foundation
import Observation

/// The live state behind every `Shared` and `SharedReader` of one key (or of one
/// `Shared(value:)`): the value, the lock that serialises its mutations, the key's subscription,
/// loading and error status, Observation and change listeners.
///
/// Sendable because every mutable stored property is read and written only while `lock` is held.
/// The value is handed out as copies; `Shared` is itself `Sendable` only when its value is, so a
/// non-`Sendable` value cannot cross threads through it.
final class SharedReference<Value>: MutableValueProjection, RootReference, Observable,
  SharedSubscriberSink, @unchecked Sendable
{
  // Recursive, so that code running inside `withLock` (an Observation callback, a nested
  // `withLock` on the same state) can read and write on the same thread without deadlocking.
  private let lock = NSRecursiveLock()
  private var storedValue: Value
  private var storedIsLoading = false
  private var storedLoadError: (any Error)?
  private var storedSaveError: (any Error)?
  private var listeners: [Int: @Sendable (Value) -> Void] = [:]
  private var nextListenerID = 0
  private var subscription: SharedSubscription?
  /// The cross-process transaction of the `withLock` running now (on the thread that holds
  /// `lock`): saves made inside it commit through it instead of beginning their own.
  private var openTransaction: KeyTransaction<Value>?
  /// Whether the key's subscription is still to be started (a flag, not a closure: a program
  /// may open thousands of keys).
  private var isSubscriptionPending = false

  /// The value the state returns to when its key reports that nothing is stored; `nil` for
  /// state created by ``Shared/init(require:)``, which has no default.
  private let defaultValue: Value?
  private let key: (any SharedReaderKey<Value>)?
  /// The key's description, made once, for the continuations' messages.
  private let describedKey: String
  /// The key again, when it can save (a `SharedReaderKey` alone cannot), found once rather than
  /// cast on every save.
  private let writableKey: (any SharedKey<Value>)?
  /// The key again, when its storage is shared with other processes and `withLock` must
  /// exclude them too.
  private let crossProcessKey: (any CrossProcessKey<Value>)?
  private let registrar = ObservationRegistrar()
  // Made once per value type: forming a key path into a generic class resolves its type at run
  // time, which would otherwise happen on every read and write (or, stored here, cost four
  // objects per reference).
  private let facts = ReferenceTypeFacts<Value>.shared
  /// `==` for the value's type, when it has one: a change to an equal value is no change.
  private var areEqual: ((Value, Value) -> Bool)? { facts.areEqual }
  private var valuePath: KeyPath<SharedReference<Value>, Value> { facts.valuePath }
  private var isLoadingPath: KeyPath<SharedReference<Value>, Bool> { facts.isLoadingPath }
  private var loadErrorPath: KeyPath<SharedReference<Value>, (any Error)?> { facts.loadErrorPath }
  private var saveErrorPath: KeyPath<SharedReference<Value>, (any Error)?> { facts.saveErrorPath }

  /// State that belongs to no key: `Shared(value:)`.
  init(value: Value) {
    storedValue = value
    defaultValue = value
    key = nil
    describedKey = "a shared value"
    writableKey = nil
    crossProcessKey = nil
  }

  /// State for a key: loads it (keeping `defaultValue` until and unless the key has something)
  /// and subscribes to its changes.
  convenience init<Key: SharedReaderKey<Value>>(key: Key, defaultValue: Value) {
    self.init(key: key, defaultValue: defaultValue, writableKey: key as? any SharedKey<Value>)
  }

  private init<Key: SharedReaderKey<Value>>(key: Key, defaultValue: Value, writableKey: (any SharedKey<Value>)?) {
    storedValue = defaultValue
    self.defaultValue = defaultValue
    self.key = key
    describedKey = String(describing: key)
    self.writableKey = writableKey
    crossProcessKey = key as? any CrossProcessKey<Value>
    storedIsLoading = true
    key.load(
      context: .initialValue(defaultValue),
      continuation: LoadContinuation(describedKey) { [weak self] result in
        self?.apply(result, finishesLoading: true)
      }
    )
    isSubscriptionPending = true
  }

  /// State for a key that can save: as ``init(key:defaultValue:)``, without finding that out by
  /// a dynamic cast (about a twentieth of the time to open a key).
  convenience init<Key: SharedKey<Value>>(key: Key, defaultValue: Value) {
    self.init(key: key, defaultValue: defaultValue, writableKey: key)
  }

  /// State for a key whose value was just loaded: subscribes to its changes.
  init<Key: SharedReaderKey<Value>>(key: Key, loadedValue: Value) {
    storedValue = loadedValue
    defaultValue = nil
    self.key = key
    describedKey = String(describing: key)
    writableKey = key as? any SharedKey<Value>
    crossProcessKey = key as? any CrossProcessKey<Value>
    isSubscriptionPending = true
  }

  /// Subscribes to the key's changes. The registry calls it once, after it has published the
  /// reference and released its lock: subscribing may wait for the file watcher's thread, which
  /// may itself be creating shared state (in an observer's callback) and need the registry.
  /// The key's subscription catches up with any change made since the load.
  func subscribeToChanges() {
    let isPending = lock.withLock {
      defer { isSubscriptionPending = false }
      return isSubscriptionPending
    }
    guard isPending, let key else { return }
    // State made from a loaded value has no default; it subscribes as a user-initiated load.
    let context: LoadContext<Value> = defaultValue.map { .initialValue($0) } ?? .userInitiated
    let subscription = key.subscribe(context: context, subscriber: SharedSubscriber(self))
    lock.withLock { self.subscription = subscription }
  }

  // MARK: Receiving from the key's subscription

  /// A value (or error) delivered by the subscription ends any loading it announced.
  func receive(_ result: Result<Value?, any Error>) {
    apply(result, finishesLoading: true)
  }

  func receiveLoading(_ isLoading: Bool) {
    setIsLoading(isLoading)
  }

  func receiveUnderLock(_ compute: () -> Result<Value?, any Error>?) {
    lock.withLock {
      if let result = compute() { apply(result, finishesLoading: false) }
    }
  }

  // MARK: Reading

  var value: Value {
    registrar.access(self, keyPath: valuePath)
    return lock.withLock { storedValue }
  }

  var root: any RootReference { self }

  var keyDescription: String? { key == nil ? nil : describedKey }

  var isLoading: Bool {
    registrar.access(self, keyPath: isLoadingPath)
    return lock.withLock { storedIsLoading }
  }

  var loadError: (any Error)? {
    registrar.access(self, keyPath: loadErrorPath)
    return lock.withLock { storedLoadError }
  }

  var saveError: (any Error)? {
    registrar.access(self, keyPath: saveErrorPath)
    return lock.withLock { storedSaveError }
  }

  func observe(_ onChange: @escaping @Sendable (Value) -> Void) -> SharedSubscription {
    let id = lock.withLock {
      // Under the lock, so that no change slips between the current value and the first change.
      onChange(storedValue)
      defer { nextListenerID += 1 }
      listeners[nextListenerID] = onChange
      return nextListenerID
    }
    return SharedSubscription { [self] in
      _ = lock.withLock { listeners.removeValue(forKey: id) }
    }
  }

  // MARK: Writing

  func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
    try lock.withLock {
      // A nested `withLock` on the same state runs inside the outer transaction.
      guard let crossProcessKey, openTransaction == nil else { return try mutate(body) }
      let transaction = crossProcessKey.beginTransaction()
      openTransaction = transaction
      defer {
        openTransaction = nil
        transaction.end()
      }
      // Another process may have written since this one last read: start from its value.
      if let change = transaction.change { apply(change, finishesLoading: false) }
      return try mutate(body)
    }
  }

  /// Runs `body` on a copy of the value and keeps and saves what it leaves. Call with `lock`
  /// held (and, for a cross-process key, its exclusive access).
  private func mutate<R>(_ body: (inout Value) throws -> R) rethrows -> R {
    // Work on a copy: a throwing body leaves nothing behind, and a nested `withLock` on the
    // same state cannot overlap an access to `storedValue`.
    var newValue = storedValue
    let result = try body(&newValue)
    if replaceValue(with: newValue) {
      saveChange(newValue)
    }
    return result
  }

  /// Stores a changed value: through the open transaction inside `withLock`, otherwise through
  /// the key. Call with `lock` held.
  private func saveChange(_ value: Value) {
    if let openTransaction {
      finishSave(Result { try openTransaction.commit(value) })
      return
    }
    guard let key = writableKey else { return }
    key.save(
      value,
      context: .didSet,
      continuation: SaveContinuation(describedKey) { [weak self] result in
        self?.finishSave(result)
      }
    )
  }

  /// Stores a new value, tells Observation and the listeners, and says whether it changed
  /// anything. Must be called with `lock` held.
  @discardableResult
  private func replaceValue(with newValue: Value) -> Bool {
    if let areEqual, areEqual(storedValue, newValue) { return false }
    registrar.withMutation(of: self, keyPath: valuePath) {
      storedValue = newValue
    }
    for listener in listeners.values {
      listener(newValue)
    }
    return true
  }

  /// Takes in what the key loaded or its subscription delivered.
  private func apply(_ result: Result<Value?, any Error>, finishesLoading: Bool) {
    lock.withLock {
      switch result {
      case let .success(newValue):
        if let newValue = newValue ?? defaultValue {
          replaceValue(with: newValue)
        }
        setLoadError(nil)
      case let .failure(error):
        setLoadError(error)
      }
      if finishesLoading {
        setIsLoading(false)
      }
    }
  }

  private func setIsLoading(_ isLoading: Bool) {
    lock.withLock {
      guard storedIsLoading != isLoading else { return }
      registrar.withMutation(of: self, keyPath: isLoadingPath) { storedIsLoading = isLoading }
    }
  }

  private func setLoadError(_ error: (any Error)?) {
    lock.withLock {
      guard storedLoadError != nil || error != nil else { return }
      registrar.withMutation(of: self, keyPath: loadErrorPath) { storedLoadError = error }
    }
  }

  /// Takes in how a save went: a failure is the save error; a success clears it, and clears a
  /// load error too, since the storage now holds a good value.
  private func finishSave(_ result: Result<Void, any Error>) {
    lock.withLock {
      setSaveError(result)
      if case .success = result { setLoadError(nil) }
    }
  }

  private func setSaveError(_ result: Result<Void, any Error>) {
    let error: (any Error)? =
      switch result {
      case .success: nil
      case let .failure(error): error
      }
    lock.withLock {
      guard storedSaveError != nil || error != nil else { return }
      registrar.withMutation(of: self, keyPath: saveErrorPath) { storedSaveError = error }
    }
  }

  // MARK: Persistence on demand

  func load() async throws {
    guard let key else { return }
    setIsLoading(true)
    try await withCheckedThrowingContinuation { (resumption: CheckedContinuation<Void, any Error>) in
      key.load(
        context: .userInitiated,
        continuation: LoadContinuation(describedKey) { [self] result in
          apply(result, finishesLoading: true)
          resumption.resume(with: result.map { _ in })
        }
      )
    }
  }

  func save() async throws {
    guard let key = writableKey else { return }
    let value = lock.withLock { storedValue }
    try await withCheckedThrowingContinuation { (resumption: CheckedContinuation<Void, any Error>) in
      key.save(
        value,
        context: .userInitiated,
        continuation: SaveContinuation(describedKey) { [self] result in
          finishSave(result)
          resumption.resume(with: result)
        }
      )
    }
  }
}
