import Synchronization
import Foundation
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
/// Sendable because every mutable property is read and written only while `lock` is held; the
/// subscriber is called outside the lock, one value at a time (`delivering` serialises calls).
private final class SharedPublisherSubscription<Input>: Subscription, @unchecked Sendable {
  typealias S = AnySubscriber<Input, Never>

  private let lock = NSRecursiveLock()
  private var subscriber: S?
  private var demand = Subscribers.Demand.none
  private var observation: SharedSubscription?
  private var repointing: SharedSubscription?
  private let delivering = NSRecursiveLock()

  init(subscriber: S) {
    self.subscriber = subscriber
  }

  func start(
    source: @escaping @Sendable () -> any ValueProjection<S.Input>,
    onRepoint: @Sendable (@escaping @Sendable (Bool) -> Void) -> SharedSubscription
  ) {
    let observe: @Sendable (Bool) -> Void = { [weak self] sendsCurrentValue in
      guard let self else { return }
      let old = lock.withLock { observation }
      old?.cancel()
      // `observe` hands over the current value first, then each change.
      let skipsNext = Atomic(!sendsCurrentValue)
      let new = source().observe { [weak self] value in
        if skipsNext.exchange(false, ordering: .relaxed) { return }
        self?.deliver(value)
      }
      lock.withLock {
        if subscriber == nil { new.cancel() } else { observation = new }
      }
    }
    let repointing = onRepoint(observe)
    lock.withLock { self.repointing = repointing }
    observe(true)
  }

  func request(_ newDemand: Subscribers.Demand) {
    lock.withLock { demand += newDemand }
  }

  func cancel() {
    let (observation, repointing) = lock.withLock {
      defer {
        subscriber = nil
        self.observation = nil
        self.repointing = nil
      }
      return (self.observation, self.repointing)
    }
    observation?.cancel()
    repointing?.cancel()
  }

  private func deliver(_ value: S.Input) {
    delivering.withLock {
      let subscriber: S? = lock.withLock {
        guard let subscriber = self.subscriber, demand > 0 else { return nil }
        demand -= 1
        return subscriber
      }
      guard let subscriber else { return }
      let more = subscriber.receive(value)
      lock.withLock { demand += more }
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
