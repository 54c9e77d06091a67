/// A key paired with the default value to use when nothing is stored.
///
/// Declare one as a static member to name a piece of shared state once, with its type and its
/// default, and use it anywhere without repeating the default:
///
/// ```swift
/// extension SharedReaderKey where Self == InMemoryKey<Int>.Default {
///   static var count: Self { Self[.inMemory("count"), default: 0] }
/// }
///
/// @Shared(.count) var count
/// ```
///
/// It has the identity of the key it wraps, so `@Shared(.count)` and
/// `@Shared(.inMemory("count")) var count = 0` are the same state.
public struct SharedKeyDefault<Base: SharedReaderKey>: SharedReaderKey {
  /// The key that loads and saves the value.
  public let base: Base
  private let makeDefaultValue: @Sendable () -> Base.Value

  /// Pairs a key with a default value.
  ///
  /// - Parameters:
  ///   - key: The key that loads and saves the value.
  ///   - value: The value to use when nothing is stored; evaluated only when needed.
  public static subscript(
    _ key: Base,
    default value: @autoclosure @escaping @Sendable () -> Base.Value
  ) -> Self {
    Self(base: key, makeDefaultValue: value)
  }

  /// The default value, evaluated anew on each call.
  public var defaultValue: Base.Value { makeDefaultValue() }

  /// The default value, evaluated anew on each call: swift-sharing's name for ``defaultValue``.
  public var initialValue: Base.Value { makeDefaultValue() }

  /// The identity of the wrapped key.
  public var id: Base.ID { base.id }

  /// Loads through the wrapped key.
  public func load(context: LoadContext<Base.Value>, continuation: LoadContinuation<Base.Value>) {
    base.load(context: context, continuation: continuation)
  }

  /// Subscribes through the wrapped key.
  public func subscribe(
    context: LoadContext<Base.Value>,
    subscriber: SharedSubscriber<Base.Value>
  ) -> SharedSubscription {
    base.subscribe(context: context, subscriber: subscriber)
  }
}

extension SharedKeyDefault: SharedKey where Base: SharedKey {
  /// Saves through the wrapped key.
  public func save(_ value: Base.Value, context: SaveContext, continuation: SaveContinuation) {
    base.save(value, context: context, continuation: continuation)
  }
}

extension SharedKeyDefault: CustomStringConvertible {
  /// A description of the wrapped key.
  public var description: String { String(describing: base) }
}

extension SharedReaderKey {
  /// This key paired with a default value: see ``SharedKeyDefault``.
  public typealias Default = SharedKeyDefault<Self>
}
