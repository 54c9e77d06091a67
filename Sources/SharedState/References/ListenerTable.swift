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

  /// The listeners, by the number ``ChangeOutbox/addListener(_:startingFrom:)`` gave them.
  let listeners: [Int: Listener]

  private init(_ listeners: [Int: Listener]) {
    self.listeners = listeners
  }

  /// `table`'s listeners and `listener`, as `id`.
  convenience init(adding listener: Listener, as id: Int, to table: ListenerTable?) {
    var listeners = table?.listeners ?? [:]
    listeners[id] = listener
    self.init(listeners)
  }

  /// The table without listener `id`; `nil` when none is left.
  func removing(_ id: Int) -> ListenerTable? {
    guard listeners[id] != nil else { return self }
    var remaining = listeners
    remaining[id] = nil
    return remaining.isEmpty ? nil : ListenerTable(remaining)
  }

  /// Calls every listener that started before the value committed as `sequence`.
  func deliver(_ value: Value, committedAs sequence: UInt64) {
    for listener in listeners.values where listener.since < sequence {
      listener.onChange(value)
    }
  }

  /// Calls listener `id` with the value it starts from.
  func deliverInitialValue(_ value: Value, to id: Int) {
    listeners[id]?.onChange(value)
  }
}
