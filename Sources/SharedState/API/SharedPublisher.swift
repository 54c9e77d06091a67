import Synchronization
import OpenCombineShim

/// A Combine publisher of a shared value: the current value on subscription, then each change.
///
/// Get one from ``Shared/publisher`` or ``SharedReader/publisher``. It follows its `Shared`
/// when that is re-pointed with `$x = Shared(…)` (and then publishes the new state's value).
/// A change this process makes arrives on the thread that made it; another process's change
/// arrives where ``SharedChangeDelivery/default`` says (the main actor unless the program chose
/// otherwise). Either way after every lock is released, in commit order. It never fails or
/// finishes.
public struct SharedPublisher<Output>: Publisher {
  /// A shared value's publisher never fails.
  public typealias Failure = Never

  let source: @Sendable () -> any ValueProjection<Output>
  let onRepoint: @Sendable (@escaping @Sendable (Bool) -> Void) -> SharedSubscription

  /// Attaches a subscriber: it receives the current value once it asks for one, then each change.
  public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Never {
    // Type-erased, so that the subscription's closures capture no subscriber type.
    let subscription = SharedPublisherSubscription(subscriber: AnySubscriber(subscriber))
    subscriber.receive(subscription: subscription)
    subscription.start(source: source, onRepoint: onRepoint)
  }
}

/// One subscriber's link to a shared value.
///
/// The subscriber is called with no lock but `delivering` held, one value at a time.
private final class SharedPublisherSubscription<Input>: Subscription, Sendable {
  typealias S = AnySubscriber<Input, Never>

  /// The subscriber, held by a reference: each value takes it out of `state`, and copying a
  /// reference is a retain where copying an `AnySubscriber` went through its generic value
  /// witnesses (about 1 % of a watching process's user time per change).
  private final class SubscriberReference {
    let subscriber: S
    init(_ subscriber: S) { self.subscriber = subscriber }
  }

  /// `@unchecked Sendable`: the subscriber is the program's, and Combine lets any thread call
  /// it; the state only lives in `state`'s `Mutex`, so one thread at a time reads or changes it.
  private struct State: @unchecked Sendable {
    var subscriber: SubscriberReference?
    var demand = Subscribers.Demand.none
    var observation: SharedSubscription?
    var repointing: SharedSubscription?
  }

  private let state: Mutex<State>
  /// Held while the subscriber receives a value, so that it receives one at a time: values
  /// arrive from the old state's delivery and the new one's at once while `$x` is re-pointed.
  ///
  /// Recursive, not a `Mutex`, because a subscriber that re-points its `Shared` (`$x =
  /// Shared(…)`) while receiving is handed the new state's current value at once, on the same
  /// thread: the receive nests inside its own. (`RecursiveLock` rather than `NSRecursiveLock`:
  /// the same mutex without a class's dynamic dispatch on every value delivered.)
  private let delivering = RecursiveLock()

  init(subscriber: S) {
    state = Mutex(State(subscriber: SubscriberReference(subscriber)))
  }

  func start(
    source: @escaping @Sendable () -> any ValueProjection<S.Input>,
    onRepoint: @Sendable (@escaping @Sendable (Bool) -> Void) -> SharedSubscription
  ) {
    let observe: @Sendable (Bool) -> Void = { [weak self] sendsCurrentValue in
      guard let self else { return }
      let old = state.withLock { $0.observation }
      old?.cancel()
      // `observe` hands over the current value first, then each change.
      let skipsNext = Atomic(!sendsCurrentValue)
      let new = source().observe { [weak self] value in
        if skipsNext.exchange(false, ordering: .relaxed) { return }
        self?.deliver(value)
      }
      let isCancelled = state.withLock { state in
        if state.subscriber != nil { state.observation = new }
        return state.subscriber == nil
      }
      if isCancelled { new.cancel() }
    }
    let repointing = onRepoint(observe)
    state.withLock { $0.repointing = repointing }
    observe(true)
  }

  func request(_ newDemand: Subscribers.Demand) {
    state.withLock { $0.demand += newDemand }
  }

  func cancel() {
    let (observation, repointing) = state.withLock { state in
      defer {
        state.subscriber = nil
        state.observation = nil
        state.repointing = nil
      }
      return (state.observation, state.repointing)
    }
    observation?.cancel()
    repointing?.cancel()
  }

  // Compiled for the commonest setting types too, as the reference's delivery that calls it
  // (see `SharedReference.deliverPendingChanges()`).
  @_specialize(where Input == Int)
  @_specialize(where Input == Bool)
  @_specialize(where Input == Double)
  @_specialize(where Input == String)
  private func deliver(_ value: S.Input) {
    delivering.withLock {
      let reference: SubscriberReference? = state.withLock { state in
        guard let reference = state.subscriber, state.demand > 0 else { return nil }
        state.demand -= 1
        return reference
      }
      guard let reference else { return }
      let more = reference.subscriber.receive(value)
      // Most subscribers ask for everything at once and no more with each value.
      if more != .none { state.withLock { $0.demand += more } }
    }
  }
}

extension Shared {
  /// A publisher of the value: the current value, then each change, whoever made it.
  public var publisher: SharedPublisher<Value> {
    SharedPublisher(
      source: { [box] in box.current },
      onRepoint: { [box] in box.onRepoint($0) }
    )
  }
}

extension SharedReader {
  /// A publisher of the value: the current value, then each change, whoever made it.
  public var publisher: SharedPublisher<Value> {
    SharedPublisher(
      source: { [box] in box.current },
      onRepoint: { [box] in box.onRepoint($0) }
    )
  }
}
