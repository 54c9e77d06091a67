/// What a reference has committed and not yet told its observers, and who its observers are.
///
/// The reference keeps one in a stored property and touches it only while holding its own lock,
/// so that a change is queued in the same critical section that commits it. Observers are called
/// later, by whichever thread takes a batch (``beginDelivery(into:)``), with no lock held
/// (invariant 10); one thread delivers at a time, so each observer sees the changes in the order
/// they were queued.
///
/// The queue itself holds no value: it is a list of ``OutboxEntry`` (not generic), and values
/// are kept beside it only while someone listens. A reference is generic over its value, and its
/// code runs unspecialised: every generic type it forms per write (an array of generic changes, a
/// dictionary of generic listeners) is a run-time metadata look-up. A key observed through
/// Observation alone forms none. For the same reason the methods a write calls are always
/// inlined: a call to a method of a generic struct passes the struct's own metadata, looked up.
struct ChangeOutbox<Value> {
  /// The listeners, `nil` when there are none; replaced, never changed in place, so that a
  /// delivery keeps the set it took.
  private(set) var listeners: ListenerTable<Value>?
  private var nextListenerID = 0
  private var pending = OutboxEntries()
  /// The values of the entries that carry one, in order.
  private var pendingValues: [Value] = []
  private var lastSequence: UInt64 = 0
  /// A thread is calling observers now; it takes what is queued meanwhile before it stops.
  private var isDelivering = false
  /// A delivery was handed to a ``SharedChangeDelivery`` and has not started yet.
  private var isScheduled = false

  /// Queues a committed value for every listener and for Observation.
  ///
  /// - Parameter isObserved: Whether the value was ever read through Observation (see
  ///   ``ObservationInterest``). With no listener either, nobody is to be told: nothing is
  ///   queued, and the write delivers nothing. (A read that noted itself after this commit's
  ///   check takes the lock after it, and reads this value.)
  @inline(__always)
  mutating func commit(_ value: Value, isFromElsewhere: Bool, isObserved: Bool) {
    lastSequence += 1
    let carriesValue = listeners != nil
    guard carriesValue || isObserved else { return }
    // A burst from elsewhere that nobody has seen yet collapses to its latest value.
    if isFromElsewhere, case let .value(_, isFromElsewhere: true, carriedValue)? = pending.last {
      pending.replaceLast(with: .value(sequence: lastSequence, isFromElsewhere: true, carriesValue: carriesValue))
      if carriedValue { pendingValues.removeLast() }
    } else {
      pending.append(.value(sequence: lastSequence, isFromElsewhere: isFromElsewhere, carriesValue: carriesValue))
    }
    if carriesValue { pendingValues.append(value) }
  }

  /// Queues a save of a committed value through a key that does not share its storage with
  /// other processes: the key's `save` is the program's code (a custom key), called in commit
  /// order with no lock held, as observers are.
  @inline(__always)
  mutating func queueSave(_ value: Value) {
    pending.append(.save)
    pendingValues.append(value)
  }

  /// Queues the news that a status property changed.
  @inline(__always)
  mutating func changed(_ property: ObservationInterest.Property) {
    pending.append(.property(property))
  }

  /// Registers a listener that first receives `current`, then every value committed after it.
  mutating func addListener(
    _ onChange: @escaping @Sendable (Value) -> Void,
    startingFrom current: Value
  ) -> Int {
    defer { nextListenerID += 1 }
    let listener = ListenerTable<Value>.Listener(onChange: onChange, since: lastSequence)
    listeners = ListenerTable(adding: listener, as: nextListenerID, to: listeners)
    pending.append(.initialValue(listener: nextListenerID))
    pendingValues.append(current)
    return nextListenerID
  }

  mutating func removeListener(_ id: Int) {
    listeners = listeners?.removing(id)
    // The values' buffer kept for listeners (see `continueDelivery(into:)`) goes with the last.
    if listeners == nil, pendingValues.count == 0 { pendingValues = [] }
  }

  /// Whether ``beginDelivery(into:)`` would take something now.
  @inline(__always)
  var hasDeliveryToBegin: Bool {
    !isDelivering && !pending.hasNone
  }

  /// Takes everything queued into `batch` (which must be empty), with the listeners to tell,
  /// when no other thread is delivering; the caller must deliver the batch, empty it, and call
  /// ``continueDelivery(into:)`` until that returns `false`.
  @inline(__always)
  mutating func beginDelivery(into batch: inout OutboxBatch<Value>) -> Bool {
    guard hasDeliveryToBegin else { return false }
    isDelivering = true
    take(into: &batch)
    return true
  }

  /// Takes what was queued during the last batch, or ends the delivery when nothing was.
  @inline(__always)
  mutating func continueDelivery(into batch: inout OutboxBatch<Value>) -> Bool {
    guard !pending.hasNone else {
      isDelivering = false
      // A key with listeners carries a value in every change: the emptied buffer comes back
      // for the next one, rather than one allocated and freed per change.
      if listeners != nil, pendingValues.capacity == 0 { swap(&batch.values, &pendingValues) }
      return false
    }
    take(into: &batch)
    return true
  }

  /// Moves the queue into `batch`, with nothing copied: the emptied batch's entries and values
  /// become the queue. (Entries keep no buffer, and values only for a key with listeners: a
  /// program with thousands of idle keys would keep one per key; the first entry is kept inline,
  /// see ``OutboxEntries``.)
  @inline(__always)
  private mutating func take(into batch: inout OutboxBatch<Value>) {
    swap(&batch.entries, &pending)
    // `count`, not `isEmpty`: unspecialised, `isEmpty` is Collection's, found through a witness
    // table looked up at run time on every call; `count` is Array's own.
    if pendingValues.count != 0 { swap(&batch.values, &pendingValues) }
    batch.listeners = listeners
  }

  /// Whether the caller should hand a delivery to the scheduler: something waits and no handed
  /// delivery is still to start.
  @inline(__always)
  mutating func claimSchedule() -> Bool {
    guard !isScheduled, !pending.hasNone else { return false }
    isScheduled = true
    return true
  }

  /// A handed delivery starts: the next change from elsewhere may hand another.
  @inline(__always)
  mutating func scheduledDeliveryStarts() {
    isScheduled = false
  }
}

/// One thing to tell a reference's observers. Its value, when it has one, travels beside it in
/// the ``OutboxBatch``.
enum OutboxEntry {
  /// A new value, with its commit number; `isFromElsewhere` for a value another process or the
  /// key's subscription brought, which a newer one from elsewhere may replace while both wait.
  /// `carriesValue` when there were listeners to keep the value for.
  case value(sequence: UInt64, isFromElsewhere: Bool, carriesValue: Bool)
  /// A change of a status property (Observation only; never `.value`, whose changes are the
  /// entries above).
  case property(ObservationInterest.Property)
  /// The value a listener starts from, for that listener only (always carried).
  case initialValue(listener: Int)
  /// A committed value to hand to the key's `save` (always carried).
  case save
}

/// A batch of changes taken from a ``ChangeOutbox`` to deliver: the entries, the values of
/// those that carry one, in order, and the listeners when the batch was taken.
struct OutboxBatch<Value> {
  var entries = OutboxEntries()
  var values: [Value] = []
  var listeners: ListenerTable<Value>?

  /// Empties the batch for the next one, keeping no buffer for entries, and the values' buffer
  /// when there were listeners (see ``ChangeOutbox/continueDelivery(into:)``).
  @inline(__always)
  mutating func removeAll() {
    entries.removeAll()
    // `count`, not `isEmpty`: see `take(into:)`.
    if values.count != 0 {
      if listeners != nil { values.removeAll(keepingCapacity: true) } else { values = [] }
    }
    listeners = nil
  }
}
