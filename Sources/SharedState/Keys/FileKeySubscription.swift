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
    let token = state.withLock { state in
      state.isCancelled = true
      defer { state.token = nil }
      return state.token
    }
    token?.cancel()
  }

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
    deliver { try key.file.readIfChanged() }
  }

  /// As ``deliverChange()``, when no event about the file prompted it (catching up, events
  /// lost): see ``StoredFile/readIfChangedUnprompted()``.
  private func deliverUnpromptedChange() {
    // Most often nothing changed, which one look tells without the reference's lock: every key
    // a program opens catches up once (a program may open thousands).
    if key.file.isUnchangedUnprompted() { return }
    deliver { try key.file.readIfChangedUnprompted() }
  }

  /// Delivers what the file holds now, read in full: after a time unwatched (which also clears
  /// the error that said so), and after a write of this process's suite API.
  func deliverRead() {
    deliver { try key.file.read() }
  }

  /// Delivers what the file holds now, read in full, after a write of this process's suite API:
  /// observers hear of it on this thread, before the write returns.
  func deliverOwnWrite() {
    subscriber.yieldLatestOwnChange { key.decodedRead { try key.file.read() } }
  }

  /// Delivers what `read` finds, under the reference's lock; then, when it found the file gone,
  /// puts the placeholder back.
  private func deliver(_ read: () throws -> FileState?) {
    var gone: FileState?
    subscriber.yieldLatest {
      key.decodedRead {
        let state = try read()
        if keepsPlaceholder, let state, FilePlaceholder.isReplaced(state) { gone = state }
        return state
      }
    }
    if let gone { restorePlaceholder(replacing: gone) }
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
    // The program's code, or Dispatch, which may start threads: under the program's policy (see
    // DeliveryThreads).
    CurrentThread.withDefaultScheduling {
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
}
