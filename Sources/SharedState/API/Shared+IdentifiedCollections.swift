import IdentifiedCollections

extension Shared {
  /// A `Shared` of the element with this id in a shared identified array, or `nil` when the
  /// array has no such element.
  ///
  /// The element is reached by id, not by position, so it stays the same element when the array
  /// is reordered. When the element is removed, the `Shared` keeps its last value and writes
  /// through it change nothing.
  ///
  /// - Parameter id: The element's id.
  public subscript<ID: Hashable & Sendable, Element>(
    id id: ID
  ) -> Shared<Element>? where Value == IdentifiedArray<ID, Element> {
    Shared<Element>(self[dynamicMember: \IdentifiedArray<ID, Element>.[id: id]])
  }
}

extension SharedReader {
  /// A reader of the element with this id in a shared identified array, or `nil` when the array
  /// has no such element.
  ///
  /// - Parameter id: The element's id.
  public subscript<ID: Hashable & Sendable, Element>(
    id id: ID
  ) -> SharedReader<Element>? where Value == IdentifiedArray<ID, Element> {
    SharedReader<Element>(self[dynamicMember: \IdentifiedArray<ID, Element>.[id: id]])
  }
}

extension Array {
  /// The elements of a shared identified array, each as a `Shared` reached by its id, in the
  /// array's order.
  ///
  /// ```swift
  /// for todo in Array($todos) {
  ///   todo.withLock { $0.isDone = true }
  /// }
  /// ```
  ///
  /// - Parameter shared: A shared identified array.
  public init<ID: Hashable & Sendable, Member>(
    _ shared: Shared<IdentifiedArray<ID, Member>>
  ) where Element == Shared<Member> {
    self = shared.wrappedValue.ids.compactMap { shared[id: $0] }
  }

  /// The elements of a shared identified array, each as a `SharedReader` reached by its id, in
  /// the array's order.
  ///
  /// - Parameter shared: A shared identified array.
  public init<ID: Hashable & Sendable, Member>(
    _ shared: SharedReader<IdentifiedArray<ID, Member>>
  ) where Element == SharedReader<Member> {
    self = shared.wrappedValue.ids.compactMap { shared[id: $0] }
  }
}
