/// What a reference has committed and not yet told its observers, and who its observers are.
///
/// The reference keeps one in a stored property and touches it only while holding its own lock,
/// so that a change is queued in the same critical section that commits it. Observers are called
/// later, by whichever thread takes a batch (``beginDelivery(into:listeners:)``), with no lock
/// held (invariant 10); one thread delivers at a time, so each observer sees the changes in the
/// order they were queued.
struct ChangeOutbox<Value> {
  /// A property of the reference that Observation tracks.
  enum Property {
    case isLoading, loadError, saveError
  }

  /// One thing to tell observers.
  enum Change {
    /// A new value, with its commit number; `isFromElsewhere` for a value another process or the
    /// key's subscription brought, which a newer one from elsewhere may replace while both wait.
    case value(Value, sequence: UInt64, isFromElsewhere: Bool)
    /// A change of a status property (Observation only).
    case property(Property)
    /// The value a listener starts from, for that listener only.
    case initialValue(Value, listener: Int)
  }

  /// A callback registered by ``SharedReference/observe(_:)``.
  struct Listener {
    let onChange: @Sendable (Value) -> Void
    /// The commit number of the value it started from: older queued values are not for it.
    let since: UInt64
  }

  /// The observers, by the number ``addListener(_:startingFrom:)`` gave them.
  private(set) var listeners: [Int: Listener] = [:]
  private var nextListenerID = 0
  private var pending: [Change] = []
  private var lastSequence: UInt64 = 0
  /// A thread is calling observers now; it takes what is queued meanwhile before it stops.
  private var isDelivering = false
  /// A delivery was handed to a ``SharedChangeDelivery`` and has not started yet.
  private var isScheduled = false

  /// Queues a committed value for every listener and for Observation.
  mutating func commit(_ value: Value, isFromElsewhere: Bool) {
    lastSequence += 1
    // A burst from elsewhere that nobody has seen yet collapses to its latest value.
    if isFromElsewhere, case .value(_, _, isFromElsewhere: true)? = pending.last {
      pending[pending.count - 1] = .value(value, sequence: lastSequence, isFromElsewhere: true)
    } else {
      pending.append(.value(value, sequence: lastSequence, isFromElsewhere: isFromElsewhere))
    }
  }

  /// Queues the news that a status property changed.
  mutating func changed(_ property: Property) {
    pending.append(.property(property))
  }

  /// Registers a listener that first receives `current`, then every value committed after it.
  mutating func addListener(
    _ onChange: @escaping @Sendable (Value) -> Void,
    startingFrom current: Value
  ) -> Int {
    defer { nextListenerID += 1 }
    listeners[nextListenerID] = Listener(onChange: onChange, since: lastSequence)
    pending.append(.initialValue(current, listener: nextListenerID))
    return nextListenerID
  }

  mutating func removeListener(_ id: Int) {
    listeners[id] = nil
  }

  /// Takes everything queued into `batch` (which must be empty), with the listeners to tell,
  /// when no other thread is delivering; the caller must deliver the batch, empty it, and call
  /// ``continueDelivery(into:listeners:)`` until that returns `false`.
  mutating func beginDelivery(
    into batch: inout [Change], listeners: inout [Int: Listener]
  ) -> Bool {
    guard !isDelivering, !pending.isEmpty else { return false }
    isDelivering = true
    swap(&batch, &pending)
    listeners = self.listeners
    return true
  }

  /// Takes what was queued during the last batch, or ends the delivery when nothing was.
  mutating func continueDelivery(
    into batch: inout [Change], listeners: inout [Int: Listener]
  ) -> Bool {
    // A swap: the batch takes what was queued meanwhile, and the queue the emptied batch, with
    // nothing copied. (An emptied batch keeps no buffer: a program with thousands of idle keys
    // would keep one per key.)
    swap(&batch, &pending)
    guard !batch.isEmpty else {
      isDelivering = false
      return false
    }
    listeners = self.listeners
    return true
  }

  /// Whether the caller should hand a delivery to the scheduler: something waits and no handed
  /// delivery is still to start.
  mutating func claimSchedule() -> Bool {
    guard !isScheduled, !pending.isEmpty else { return false }
    isScheduled = true
    return true
  }

  /// A handed delivery starts: the next change from elsewhere may hand another.
  mutating func scheduledDeliveryStarts() {
    isScheduled = false
  }
}
