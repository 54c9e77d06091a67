import Foundation
import Observation

/// The live state behind every `Shared` and `SharedReader` of one key (or of one
/// `Shared(value:)`): the value, the lock that serialises its mutations, the key's subscription,
/// loading and error status, Observation and change listeners.
///
/// Observers (Observation, listeners behind publishers, `values` and subscriptions) never run
/// while `lock` or a key's cross-process lock is held (invariant 10): a change is committed and
/// queued in `outbox` under the lock, and delivered after the lock is released, on the thread
/// that made it, or for changes from elsewhere through ``SharedChangeDelivery/default``.
///
/// Sendable because every mutable stored property is read and written only while `lock` is held.
/// The value is handed out as copies; `Shared` is itself `Sendable` only when its value is, so a
/// non-`Sendable` value cannot cross threads through it.
final class SharedReference<Value>: ObservedState, MutableValueProjection, RootReference, @unchecked Sendable {
  // Recursive, so that code running inside `withLock`'s body (a read, a nested `withLock` on
  // the same state) can read and write on the same thread without deadlocking.
  let lock = RecursiveLock()
  /// How deep the thread that holds `lock` is in ``changing(_:)``: only the outermost level
  /// delivers, once the lock is really released.
  // Unchecked exclusivity (also `storedValue` and `outbox`): touched only with `lock` held, and
  // no access to one of them spans a call that could access it again (a `withLock` body works on
  // a copy). Checked, the accesses of every delivered change cost look-ups of the thread's
  // access set.
  @exclusivity(unchecked) var changeDepth = 0
  @exclusivity(unchecked) private var storedValue: Value
  private var storedIsLoading = false
  private var storedLoadError: (any Error)?
  private var storedSaveError: (any Error)?
  /// Changes committed and not yet delivered, and the listeners to deliver them to.
  @exclusivity(unchecked) var outbox = ChangeOutbox<Value>()
  private var subscription: SharedSubscription?
  /// The cross-process transaction of the `withLock` running now (on the thread that holds
  /// `lock`): a `withLock` nested in it commits through it instead of beginning its own.
  // Unowned and unsafe, so that setting and clearing it retains nothing: it is set only while
  // the `withLock` that began the transaction holds it in a local constant, and cleared before
  // that constant goes out of scope.
  private unowned(unsafe) var openTransaction: (any KeyTransaction)?
  /// The transaction of the `withLock` that just ended, whose deliveries resume once `lock` is
  /// released (see ``KeyTransaction/endDeferringDeliveries()``): set and taken with `lock` held.
  @exclusivity(unchecked) var transactionToResume: (any KeyTransaction)?
  /// Whether the key's subscription is still to be started (a flag, not a closure: a program
  /// may open thousands of keys).
  private var isSubscriptionPending = false

  /// The value the state returns to when its key reports that nothing is stored; `nil` for
  /// state created by ``Shared/init(require:)``, which has no default.
  private let defaultValue: Value?
  private let key: (any SharedReaderKey<Value>)?
  /// The key this reference loads, subscribes and writes through: for a key whose storage other
  /// processes share, its own copy (see ``ownCopy(of:)``), not the key it was made with.
  var keyInUse: (any SharedReaderKey<Value>)? { key }
  /// The key again, when it can save (a `SharedReaderKey` alone cannot), found once rather than
  /// cast on every save.
  private let writableKey: (any SharedKey<Value>)?
  /// The key again, when its storage is shared with other processes and `withLock` must
  /// exclude them too: the reference's own copy (see ``ownCopy(of:)``), found when the reference
  /// is made, in a holder of its own (see ``HeldCrossProcessKey``).
  private let crossProcessKey: (any HeldCrossProcessKey<Value>)?
  // Found once per value type: finding `==` is a dynamic cast.
  private let facts = ReferenceTypeFacts<Value>.shared
  /// `==` for the value's type, when it has one: a change to an equal value is no change.
  private var areEqual: ((Value, Value) -> Bool)? { facts.areEqual }

  /// State that belongs to no key: `Shared(value:)`.
  init(value: Value) {
    storedValue = value
    defaultValue = value
    key = nil
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
    let owned = Self.ownCopy(of: key)
    let kept: any SharedReaderKey<Value> = if let owned { owned.key } else { key }
    self.key = kept
    self.writableKey = owned?.key ?? writableKey
    crossProcessKey = owned
    storedIsLoading = true
    super.init()
    kept.load(
      context: .initialValue(defaultValue),
      continuation: LoadContinuation(describing: key) { [weak self] result in
        guard let self else { return }
        changing { apply(result, finishesLoading: true, isFromElsewhere: false) }
      }
    )
    isSubscriptionPending = true
  }

  /// For a key whose storage other processes share, the copy this reference keeps: one with a
  /// knowledge of the stored value of its own (see ``CrossProcessKey/withOwnKnowledge()``), so
  /// that what it knows is what this reference holds. `nil` for another key. (The one dynamic
  /// cast a key's reference makes, to a protocol without constraints: a write later finds the
  /// key in the holder.)
  private static func ownCopy<Key: SharedReaderKey<Value>>(of key: Key) -> (any HeldCrossProcessKey<Value>)? {
    (key as? any KnowledgeOwningKey)?.ownCopy(holding: Value.self)
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
    let owned = Self.ownCopy(of: key)
    self.key = if let owned { owned.key } else { key }
    writableKey = owned?.key ?? key as? any SharedKey<Value>
    crossProcessKey = owned
    isSubscriptionPending = true
  }

  /// Subscribes to the key's changes. The registry calls it once, after it has published the
  /// reference and released its lock: subscribing may wait for the file watcher's thread, which
  /// may itself be creating shared state (in an observer's callback) and need the registry.
  /// The key's subscription catches up with any change made since the load.
  func subscribeToChanges() {
    let isPending: Bool = lock.withLock {
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

  /// A value (or error) delivered by the subscription ends any loading it announced. A custom
  /// key's subscription yields it on a thread of the key's choosing: it is delivered there.
  func receive(_ result: Result<Value?, any Error>) {
    changing { apply(result, finishesLoading: true, isFromElsewhere: true) }
  }

  /// Takes in the key's loading state.
  func receiveLoading(_ isLoading: Bool) {
    changing { setIsLoading(isLoading) }
  }

  /// Takes in what `compute` returns, computed under `lock`; `nil` is nothing new. Observers hear
  /// of it through ``SharedChangeDelivery/default``.
  func receiveUnderLock(_ compute: () -> Result<Value?, any Error>?) {
    receivingFromElsewhere {
      if let result = compute() { apply(result, finishesLoading: false, isFromElsewhere: true) }
    }
  }

  /// A change this process made through the storage's own API (a suite's `set`): delivered
  /// on this thread, and never collapsed into a later change from elsewhere.
  func receiveOwnChangeUnderLock(_ compute: () -> Result<Value?, any Error>?) {
    changing {
      if let result = compute() { apply(result, finishesLoading: false, isFromElsewhere: false) }
    }
  }

  // MARK: Reading

  var value: Value {
    noteAccess(to: .value)
    return lock.withLock { storedValue }
  }

  var root: any RootReference { self }

  var keyDescription: String? { key.map { String(describing: $0) } }

  var isLoading: Bool {
    noteAccess(to: .isLoading)
    return lock.withLock { storedIsLoading }
  }

  var loadError: (any Error)? {
    noteAccess(to: .loadError)
    return lock.withLock { storedLoadError }
  }

  var saveError: (any Error)? {
    noteAccess(to: .saveError)
    return lock.withLock { storedSaveError }
  }

  func observe(_ onChange: @escaping @Sendable (Value) -> Void) -> SharedSubscription {
    // The current value is queued with the listener, in one critical section, so that no change
    // slips between it and the first change, and it is delivered before any later change.
    let id = changing { outbox.addListener(onChange, startingFrom: storedValue) }
    return SharedSubscription { [self] in
      lock.withLock { outbox.removeListener(id) }
    }
  }

  // MARK: Writing

  // Compiled for the commonest setting types too (see ``deliverPendingChanges()``): the write path.
  @_specialize(where Value == Int, R == Void)
  @_specialize(where Value == Bool, R == Void)
  @_specialize(where Value == Double, R == Void)
  @_specialize(where Value == String, R == Void)
  func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
    try changing {
      guard let crossProcessKey else { return try mutate(body, committingThrough: nil, to: nil) }
      // A nested `withLock` on the same state runs inside the outer transaction.
      if let openTransaction { return try mutate(body, committingThrough: openTransaction, to: crossProcessKey) }
      // Another process may have written since this one last read: start from its value.
      let transaction = crossProcessKey.beginTransaction { change in
        apply(change, finishesLoading: false, isFromElsewhere: false)
      }
      openTransaction = transaction
      defer {
        openTransaction = nil
        // Changes made elsewhere from now until `changing` releases the lock are left to the
        // transaction, not waited for behind the lock by the thread that delivers them.
        transaction.endDeferringDeliveries()
        transactionToResume = transaction
      }
      // A value that could not be brought up to date is not written over (invariant 1).
      if let readFailure = transaction.readFailure {
        setSaveError(readFailure)
        return try refuse(body)
      }
      return try mutate(body, committingThrough: transaction, to: crossProcessKey)
    }
  }

  /// What `withLock` does when its transaction could not read the current value: nothing is
  /// written. A body that returns nothing is not run at all; one that returns a result runs on a
  /// copy of the last value known, for its result only, and what it changes is dropped (a
  /// `rethrows` method can throw no error of its own). Either way ``saveError`` says why.
  private func refuse<R>(_ body: (inout Value) throws -> R) rethrows -> R {
    if R.self == Void.self { return () as! R }
    var copy = storedValue
    return try body(&copy)
  }

  /// Runs `body` on a copy of the value and keeps and saves what it leaves: for a cross-process
  /// key, commits it through `transaction` to `key` (both passed in, not read again from the
  /// reference: each read would retain them). Call with `lock` held (and, for a cross-process
  /// key, its exclusive access).
  private func mutate<R>(
    _ body: (inout Value) throws -> R,
    committingThrough transaction: (any KeyTransaction)?,
    to key: (any HeldCrossProcessKey<Value>)?
  ) rethrows -> R {
    // Work on a copy: a throwing body leaves nothing behind, and a nested `withLock` on the
    // same state cannot overlap an access to `storedValue`.
    var newValue = storedValue
    let result = try body(&newValue)
    if let areEqual, areEqual(storedValue, newValue) { return result }
    if let transaction, let key {
      commit(newValue, to: key, through: transaction, isNew: true)
      return result
    }
    store(newValue, isFromElsewhere: false)
    if writableKey != nil { outbox.queueSave(newValue) }
    return result
  }

  /// Commits `value` through `transaction` and takes in how that went. Committed first: a value
  /// that could not be stored is never announced; `isNew` says whether a stored value is
  /// announced at all (a save of the value already held changes nothing to announce). Call with
  /// `lock` held.
  ///
  /// - Returns: The save error, or `nil`.
  @discardableResult
  private func commit(
    _ value: Value,
    to key: any HeldCrossProcessKey<Value>,
    through transaction: any KeyTransaction,
    isNew: Bool
  ) -> (any Error)? {
    let saveError: (any Error)?
    do {
      try key.commit(value, through: transaction)
      saveError = nil
    } catch let stored as StoredWithSaveError {
      saveError = stored.saveError
    } catch {
      setSaveError(error)
      return error
    }
    if isNew { store(value, isFromElsewhere: false) }
    finishSave(saveError)
    return saveError
  }

  /// Saves a changed value through the key, outside a transaction (keys that do not share their
  /// storage with other processes). Called with no lock held, in commit order (see
  /// ``ChangeOutbox/queueSave(_:)``).
  func saveThroughKey(_ value: Value) {
    guard let key = writableKey else { return }
    key.save(
      value,
      context: .didSet,
      continuation: SaveContinuation(describing: key) { [weak self] result in
        guard let self else { return }
        changing { finishSave(result.failure) }
      }
    )
  }

  /// Stores a new value and queues it for Observation and the listeners. Call with `lock` held.
  private func store(_ newValue: Value, isFromElsewhere: Bool) {
    storedValue = newValue
    outbox.commit(newValue, isFromElsewhere: isFromElsewhere, isObserved: observationInterest.wasRead(.value))
  }

  /// Takes in what the key loaded or its subscription delivered. Call with `lock` held.
  private func apply(
    _ result: Result<Value?, any Error>,
    finishesLoading: Bool,
    isFromElsewhere: Bool
  ) {
    switch result {
    case let .success(newValue):
      if let newValue = newValue ?? defaultValue,
        areEqual?(storedValue, newValue) != true
      {
        store(newValue, isFromElsewhere: isFromElsewhere)
      }
      setLoadError(nil)
    case let .failure(error):
      setLoadError(error)
    }
    if finishesLoading {
      setIsLoading(false)
    }
  }

  /// Call with `lock` held.
  private func setIsLoading(_ isLoading: Bool) {
    guard storedIsLoading != isLoading else { return }
    storedIsLoading = isLoading
    outbox.changed(.isLoading)
  }

  /// Call with `lock` held.
  private func setLoadError(_ error: (any Error)?) {
    guard storedLoadError != nil || error != nil else { return }
    storedLoadError = error
    outbox.changed(.loadError)
  }

  /// Takes in how a save went: a failure is the save error; a success clears it, and clears a
  /// load error too, since the storage now holds a good value. Call with `lock` held.
  private func finishSave(_ error: (any Error)?) {
    setSaveError(error)
    if error == nil { setLoadError(nil) }
  }

  /// Call with `lock` held.
  private func setSaveError(_ error: (any Error)?) {
    guard storedSaveError != nil || error != nil else { return }
    storedSaveError = error
    outbox.changed(.saveError)
  }

  // MARK: Persistence on demand

  nonisolated(nonsending) func load() async throws {
    guard let key else { return }
    changing { setIsLoading(true) }
    try await withCheckedThrowingContinuation { (resumption: CheckedContinuation<Void, any Error>) in
      key.load(
        context: .userInitiated,
        continuation: LoadContinuation(describing: key) { [self] result in
          changing { apply(result, finishesLoading: true, isFromElsewhere: false) }
          resumption.resume(with: result.map { _ in })
        }
      )
    }
  }

  nonisolated(nonsending) func save() async throws {
    guard let key = writableKey else { return }
    if let outcome = saveInTransaction() { return try outcome.get() }
    // The key's `save` is the program's code (a custom key): called once the lock is released.
    let value = lock.withLock { storedValue }
    try await withCheckedThrowingContinuation { (resumption: CheckedContinuation<Void, any Error>) in
      key.save(
        value,
        context: .userInitiated,
        continuation: SaveContinuation(describing: key) { [self] result in
          changing { finishSave(result.failure) }
          resumption.resume(with: result)
        }
      )
    }
  }

  /// For a key shared with other processes, saves the latest value in a transaction of its own,
  /// begun under `lock` as a `withLock`'s is. The value read and then saved outside it could be
  /// older than one another thread or process committed in between, and would write over it.
  ///
  /// - Returns: `nil` for other keys; otherwise the save's outcome (a failure's error is also
  ///   ``saveError``).
  private func saveInTransaction() -> Result<Void, any Error>? {
    changing {
      guard let crossProcessKey else { return nil }
      let transaction = crossProcessKey.beginTransaction { change in
        apply(change, finishesLoading: false, isFromElsewhere: false)
      }
      defer { transaction.end() }
      if let readFailure = transaction.readFailure {
        setSaveError(readFailure)
        return .failure(readFailure)
      }
      if let saveError = commit(storedValue, to: crossProcessKey, through: transaction, isNew: false) {
        return .failure(saveError)
      }
      return .success(())
    }
  }
}

extension Result {
  /// The error of a failure, `nil` for a success.
  fileprivate var failure: Failure? {
    guard case let .failure(error) = self else { return nil }
    return error
  }
}
