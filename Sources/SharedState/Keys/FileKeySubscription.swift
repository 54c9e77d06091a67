import Synchronization

/// One reference's subscription to the changes of a file-backed key (``FileStorageKey``, and
/// ``AppStorageKey`` through it): it hears the file's watch events and brings the reference up
/// to date.
///
/// One object holds what a subscription needs (the key, the subscriber, the watch and whether
/// the file is watched), rather than several closures and boxes: a program may open thousands
/// of keys.
final class FileKeySubscription<Value: Sendable>: Sendable {
  private let key: FileStorageKey<Value>
  private let subscriber: SharedSubscriber<Value>
  /// Whether a file found missing (or holding swift-sharing's placeholder) is replaced by the
  /// empty placeholder: see ``FileStorageKey/subscribe(context:subscriber:)``.
  private let keepsPlaceholder: Bool
  private let state = Mutex(State())

  private struct State {
    /// While the file cannot be watched, `loadError` says so; the full read that follows
    /// `resynchronize` brings the value up to date and clears it.
    var isUnwatched = false
    var token: WatchToken?
    var isCancelled = false
    /// Writes of the suite's API begun (``ownWriteBegins()``) and not yet over: each holds the
    /// handle's deliveries back until it ends, or until the subscription is cancelled.
    var ownWritesUnderWay = 0
  }

  init(key: FileStorageKey<Value>, subscriber: SharedSubscriber<Value>, keepingPlaceholder: Bool) {
    self.key = key
    self.subscriber = subscriber
    keepsPlaceholder = keepingPlaceholder
  }

  /// Starts watching; then, when the key was loaded (`catchingUp`), catches up with any change
  /// made since (the load came before the watch was in place); otherwise reads the file only to
  /// know it, so that the subscriber hears of changes from now on, as swift-sharing's does, not
  /// of the file as it is.
  func start(catchingUp: Bool) {
    // Captured strongly: the watch holds this object until `cancel()` cancels the token, and
    // the reference's `SharedSubscription` always does, at the latest when it is released.
    let token = key.file.watch { [self] event in handle(event) }
    let isCancelled = state.withLock { state in
      if !state.isCancelled { state.token = token }
      return state.isCancelled
    }
    if isCancelled {
      token.cancel()
      return
    }
    guard catchingUp else {
      _ = try? key.file.read()
      return
    }
    deliverUnpromptedChange()
  }

  /// Stops the events; one being delivered may still finish.
  func cancel() {
    let (token, ownWrites) = state.withLock { state in
      state.isCancelled = true
      defer {
        state.token = nil
        state.ownWritesUnderWay = 0
      }
      return (state.token, state.ownWritesUnderWay)
    }
    token?.cancel()
    // A write under way will not be heard of again: the handle (shared with copies of the key)
    // must not hold its deliveries back for it.
    for _ in 0..<ownWrites { key.file.localWriteEnds() }
  }

  // Compiled for the commonest setting types as well (see ``SharedReference/deliverPendingChanges()``).
  @_specialize(where Value == Int)
  @_specialize(where Value == Bool)
  @_specialize(where Value == Double)
  @_specialize(where Value == String)
  private func handle(_ event: FileWatchEvent) {
    switch event {
    case .replaced, .writtenInPlace:
      deliverChange()
    case .resynchronize:
      let wasUnwatched = state.withLock { state in
        defer { state.isUnwatched = false }
        return state.isUnwatched
      }
      if wasUnwatched { deliverRead() } else { deliverUnpromptedChange() }
    case let .unwatched(failure):
      state.withLock { $0.isUnwatched = true }
      let error = FileStorageError(.unwatched, path: key.path, underlying: failure)
      subscriber.yieldLatest { .failure(error) }
    }
  }

  /// Delivers what the file holds now, if it differs from what the handle last saw.
  func deliverChange() {
    deliver(on: .delivery)
  }

  /// As ``deliverChange()``, when no event about the file prompted it (catching up, events
  /// lost): see ``StoredFile/reading(on:)``. Most often nothing changed, which one look tells
  /// without the reference's lock: every key a program opens catches up once (a program may
  /// open thousands).
  private func deliverUnpromptedChange() {
    deliver(on: .catchUp)
  }

  /// Delivers what the file holds now, read in full: after a time unwatched (which also clears
  /// the error that said so), and after a write of this process's suite API.
  func deliverRead() {
    deliver(on: .load)
  }

  /// A write of this process's suite API to the file begins. It writes through a handle of its
  /// own, so the watch sees it too: until it ends, the watch's deliveries are left to the read
  /// that follows it (see ``ownWriteEnds(wrote:)``), or a subscriber could hear the write twice,
  /// and a `@Shared`'s observers hear it only where changes from elsewhere are delivered.
  func ownWriteBegins() {
    let isCounted = state.withLock { state in
      guard !state.isCancelled else { return false }
      state.ownWritesUnderWay += 1
      return true
    }
    if isCounted { key.file.localWriteBegins() }
  }

  /// A write of this process's suite API to the file is over. When it wrote, and this
  /// subscription heard it begin, delivers what the file holds now, read in full: observers hear
  /// of it on this thread, before the write returns. Then the handle makes, on the watcher's
  /// threads, any delivery the watch left meanwhile (it finds nothing new unless another process
  /// wrote since).
  ///
  /// A subscription that started while the write was under way (through another instance of the
  /// key, whose handle held nothing back) has had the write from its catch-up or its watch, both
  /// in place before it read: delivering it here too made it hear the write twice.
  func ownWriteEnds(wrote: Bool) {
    // Only a write this subscription heard begin (it may have started listening meanwhile, or
    // been cancelled).
    let wasCounted = state.withLock { state in
      guard state.ownWritesUnderWay > 0 else { return false }
      state.ownWritesUnderWay -= 1
      return true
    }
    guard wasCounted else { return }
    if wrote { deliver(on: .load, isOwnChange: true) }
    key.file.localWriteEnds()
  }

  /// Delivers what the file holds on `occasion` (when it is news), then, when it found the file
  /// gone, puts the placeholder back.
  ///
  /// The file is read and decoded with no lock of the reference's held, and what was read is
  /// taken in under it (``StoredFile/takeIn(_:)``) only if the handle still knows what it knew
  /// when the read began: a write of this process (a `withLock`, which holds the reference's
  /// lock through its transaction) or another delivery that came between has brought the
  /// handle, and the value with it, further, and the file is looked at again. So a value read
  /// from the file never overtakes a write the reference makes meanwhile, and what the handle
  /// knows is always what the reference holds. Neither the read nor the key's decoder ever runs
  /// under the reference's lock, not even when every read is overtaken.
  private func deliver(on occasion: LookOccasion, isOwnChange: Bool = false) {
    let file = key.file
    // Left to a `withLock` of this key's under way, which holds the reference's lock meanwhile,
    // or to a suite write of this process's under way, which delivers what it wrote (see
    // ``StoredFile/deferToTransaction()``). A catch-up too: made during a suite write, it
    // delivered that write as a change from elsewhere, and the write's own delivery delivered
    // it again. (A load is not left: it delivers what it reads whatever the handle knows.)
    let defers = occasion == .delivery || occasion == .catchUp
    if defers, file.deferToTransaction() { return }
    for _ in 0..<Self.readsPerDelivery {
      let reading = file.reading(on: occasion)
      if reading.isNothingNew { return }
      if case .success(nil) = reading.found {
        // Nothing to deliver, only more to know (a write that left the same bytes): the value
        // the reference holds is still the file's.
        _ = file.takeIn(reading)
        return
      }
      // Decoded before the lock is taken: the key's decoder is the program's code.
      let decoded = key.decodedRead { try reading.found.get() }
      // Asked again: a `withLock` may have begun while the file was read.
      if defers, file.deferToTransaction() { return }
      var isTaken = false
      yield(isOwnChange: isOwnChange) {
        guard file.takeIn(reading) else { return nil }
        isTaken = true
        return decoded
      }
      guard isTaken else { continue }
      if keepsPlaceholder, case let .success(state?) = reading.found, FilePlaceholder.isReplaced(state) {
        restorePlaceholder(replacing: state)
      }
      return
    }
    // Overtaken each time (this process writes the key without pause): nothing is left to
    // deliver, and the file is never read under the reference's lock (nor the key's decoder run
    // there). What overtook the last read knew what overtook the read before it, so it looked at
    // the file after this delivery began: either after the write the last read found (the
    // reference holds that write or a later one), or before it, and then that write was made
    // while this delivery ran and its events wait for the next one. (The first read alone could
    // be overtaken by a look older than the write it found: it is never the last.)
  }

  /// How many times a delivery reads before it leaves the change to what overtook it (at least
  /// two: see the end of ``deliver(on:isOwnChange:)``).
  private static var readsPerDelivery: Int { 4 }

  /// Hands what `compute` returns (under the reference's lock) to the subscriber: as a change
  /// from elsewhere, or as this process's own.
  private func yield(isOwnChange: Bool, _ compute: () -> Result<Value?, any Error>?) {
    if isOwnChange {
      subscriber.yieldLatestOwnChange(compute)
    } else {
      subscriber.yieldLatest(compute)
    }
  }

  /// Puts the empty placeholder back where the file was found missing (or holding
  /// swift-sharing's placeholder), where changes are delivered (``SharedChangeDelivery/default``:
  /// the main actor unless the program chose otherwise), as swift-sharing restores its
  /// placeholder on the main queue: main-actor code that removes the file and moves another
  /// into its place, with no suspension between, finds the name free. Created only if there is
  /// still no file once the lock is held, so that when several processes see the file go, one
  /// of them makes it and none replaces what another program put there. A failure to write it is
  /// silent: the state is at its default either way.
  ///
  /// What another program put there instead is delivered at once: the write's transaction
  /// brought the handle up to date, so the watch's next read takes it as already known.
  private func restorePlaceholder(replacing state: FileState) {
    SharedChangeDelivery.default.schedule { [self] in
      guard !self.state.withLock({ $0.isCancelled }) else { return }
      subscriber.yieldLatest {
        guard let now = try? key.file.write(FilePlaceholder.contents, ifStillHolding: state),
          now != .contents(FilePlaceholder.contents)
        else { return nil }
        return key.decoded(now)
      }
    }
  }
}
