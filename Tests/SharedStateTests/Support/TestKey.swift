import ConcurrencyExtras
import SharedState

/// An error for keys to fail with.
struct TestError: Error, Equatable {
  var message = "test error"
}

/// A controllable stand-in for an external system: tests decide what loads return, whether
/// saves fail, and push changes "from elsewhere" to subscribers.
final class TestBackend<Value: Sendable>: Sendable {
  /// How loads answer.
  enum LoadMode: Sendable {
    /// Resume at once with what is stored (or the initial value when nothing is).
    case immediate
    /// Hold the continuation until ``resumePendingLoads()``.
    case deferred
    /// Resume at once with an error.
    case failing(TestError)
  }

  let stored = LockIsolated<Value?>(nil)
  let loadMode = LockIsolated(LoadMode.immediate)
  let saveFailure = LockIsolated<TestError?>(nil)
  let savedValues = LockIsolated<[Value]>([])
  let loadCount = LockIsolated(0)
  private let pendingLoads = LockIsolated<[LoadContinuation<Value>]>([])
  private let subscribers = LockIsolated<[Int: SharedSubscriber<Value>]>([:])
  private let nextSubscriberID = LockIsolated(0)

  init(stored: Value? = nil) {
    self.stored.setValue(stored)
  }

  var subscriberCount: Int { subscribers.count }

  /// Changes the stored value as another process would, and tells the subscribers.
  func writeFromElsewhere(_ value: Value?) {
    stored.setValue(value)
    for subscriber in subscribers.values {
      subscriber.yield(with: .success(value))
    }
  }

  /// Tells the subscribers that the stored bytes no longer decode.
  func failFromElsewhere(_ error: TestError) {
    for subscriber in subscribers.values {
      subscriber.yield(throwing: error)
    }
  }

  func resumePendingLoads() {
    let pending = pendingLoads.withValue { pending in
      defer { pending = [] }
      return pending
    }
    for continuation in pending {
      continuation.resume(with: .success(stored.value))
    }
  }

  fileprivate func load(continuation: LoadContinuation<Value>) {
    loadCount.withValue { $0 += 1 }
    switch loadMode.value {
    case .immediate:
      continuation.resume(with: .success(stored.value))
    case .deferred:
      pendingLoads.withValue { $0.append(continuation) }
    case let .failing(error):
      continuation.resume(throwing: error)
    }
  }

  fileprivate func subscribe(_ subscriber: SharedSubscriber<Value>) -> SharedSubscription {
    let id = nextSubscriberID.withValue { id in
      defer { id += 1 }
      return id
    }
    subscribers.withValue { $0[id] = subscriber }
    return SharedSubscription { [subscribers] in
      _ = subscribers.withValue { $0.removeValue(forKey: id) }
    }
  }

  fileprivate func save(_ value: Value, continuation: SaveContinuation) {
    if let failure = saveFailure.value {
      continuation.resume(throwing: failure)
      return
    }
    stored.setValue(value)
    savedValues.withValue { $0.append(value) }
    continuation.resume()
  }
}

/// A key over a ``TestBackend``. Keys over different backends are different state.
struct TestKey<Value: Sendable>: SharedKey {
  let name: String
  let backend: TestBackend<Value>

  struct ID: Hashable {
    let name: String
    let backend: ObjectIdentifier
  }

  var id: ID { ID(name: name, backend: ObjectIdentifier(backend)) }

  func load(context: LoadContext<Value>, continuation: LoadContinuation<Value>) {
    backend.load(continuation: continuation)
  }

  func subscribe(context: LoadContext<Value>, subscriber: SharedSubscriber<Value>) -> SharedSubscription {
    backend.subscribe(subscriber)
  }

  func save(_ value: Value, context: SaveContext, continuation: SaveContinuation) {
    backend.save(value, continuation: continuation)
  }
}

/// A read-only key over a ``TestBackend``.
struct TestReaderKey<Value: Sendable>: SharedReaderKey {
  let name: String
  let backend: TestBackend<Value>

  var id: TestKey<Value>.ID { TestKey<Value>.ID(name: name, backend: ObjectIdentifier(backend)) }

  func load(context: LoadContext<Value>, continuation: LoadContinuation<Value>) {
    backend.load(continuation: continuation)
  }

  func subscribe(context: LoadContext<Value>, subscriber: SharedSubscriber<Value>) -> SharedSubscription {
    backend.subscribe(subscriber)
  }
}
