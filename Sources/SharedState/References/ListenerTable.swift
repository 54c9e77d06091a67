/// The callbacks registered by ``SharedReference/observe(_:)`` on one reference, at one moment.
///
/// Never changed in place: adding or removing a listener makes a new table, so that a delivery
/// calls the set it took under the reference's lock while later registrations go on. A class,
/// so that the outbox holds it as one optional reference, with no generic type formed per write
/// (see ``ChangeOutbox``).
final class ListenerTable<Value>: Sendable {
  /// One registered callback.
  struct Listener: Sendable {
    let onChange: @Sendable (Value) -> Void
    /// The commit number of the value it started from: older queued values are not for it.
    let since: UInt64
  }

  /// The listeners in the order they were added, each with the number
  /// ``ChangeOutbox/addListener(_:startingFrom:)`` gave it. An array walked by index: in code
  /// generic over the value, a dictionary's iterator is a type formed at run time on every
  /// change, and a reference rarely has more than a few listeners.
  private let listeners: [(id: Int, listener: Listener)]

  private init(_ listeners: [(id: Int, listener: Listener)]) {
    self.listeners = listeners
  }

  /// `table`'s listeners and `listener`, as `id`.
  convenience init(adding listener: Listener, as id: Int, to table: ListenerTable?) {
    var listeners = table?.listeners ?? []
    listeners.append((id, listener))
    self.init(listeners)
  }

  /// The table without listener `id`; `nil` when none is left.
  func removing(_ id: Int) -> ListenerTable? {
    guard listeners.contains(where: { $0.id == id }) else { return self }
    let remaining = listeners.filter { $0.id != id }
    return remaining.isEmpty ? nil : ListenerTable(remaining)
  }

  /// Calls every listener that started before the value committed as `sequence`.
  func deliver(_ value: Value, committedAs sequence: UInt64) {
    var index = 0
    while index < listeners.count {
      let listener = listeners[index].listener
      if listener.since < sequence { listener.onChange(value) }
      index += 1
    }
  }

  /// Calls listener `id` with the value it starts from.
  func deliverInitialValue(_ value: Value, to id: Int) {
    var index = 0
    while index < listeners.count {
      if listeners[index].id == id { return listeners[index].listener.onChange(value) }
      index += 1
    }
  }
}
