import Foundation

extension FileStorageKey {
  /// Reads and decodes the file as ``load(context:continuation:)`` does and, when the load has
  /// an initial value and `replacement` gives bytes for what the file holds, writes them: only
  /// if the file still holds that once the cross-process lock is held, or, for a missing file,
  /// only by creating it, never replacing one (without the lock, and without making a lock file,
  /// where no process has taken the lock yet: see `UnlockedCreation`), so that a value another
  /// process or program wrote meanwhile wins and is the one this load returns. Watchers see the
  /// write as any other.
  ///
  /// When the bytes cannot be written (a read-only directory, another user's), or may not be,
  /// because the directory is one other users can write or the path goes through a symbolic
  /// link another user planted (see `ReadCreation`), the load returns what it read, silently
  /// and creating nothing: the key still works, and the next write on purpose creates the file.
  ///
  /// - Parameter replacement: The bytes to write, given the initial value and what the file
  ///   holds; `nil` to write nothing.
  func loadWriting(
    context: LoadContext<Value>,
    continuation: LoadContinuation<Value>,
    replacement: (Value, FileState) -> FileContents?
  ) {
    markLoaded()
    let state: FileState
    do {
      state = try file.read()
    } catch {
      continuation.resume(throwing: unreadable(error))
      return
    }
    guard let initialValue = context.initialValue, let bytes = replacement(initialValue, state) else {
      continuation.resume(with: decoded(state))
      return
    }
    do {
      let stored = try file.write(bytes, ifStillHolding: state)
      continuation.resume(with: stored == .contents(bytes) ? .success(initialValue) : decoded(stored))
    } catch is DirectoryNotFlushed {
      // Stored, not known to be durable: a load has no save error to say so.
      continuation.resume(returning: initialValue)
    } catch {
      continuation.resume(with: decoded(state))
    }
  }

  /// Reads and decodes the file and, when there is no file and the load has an initial value,
  /// stores that value (see ``loadWriting(context:continuation:replacement:)``). App storage
  /// loads this way, as `UserDefaults`-backed app storage does; see the *App storage* article.
  ///
  /// A file that is there is never written, even when it does not decode or is empty; a default
  /// that is stored as no file (`nil`) or as JSON `null` is not stored.
  func loadStoringInitialValue(context: LoadContext<Value>, continuation: LoadContinuation<Value>) {
    loadWriting(context: context, continuation: continuation) { initialValue, state in
      guard state == .missing, let bytes = (try? encode(initialValue)) ?? nil, !Self.isJSONNull(bytes) else {
        return nil
      }
      return bytes
    }
  }

  /// Whether `bytes` are JSON's `null` (with any surrounding white space): a default that stands
  /// for no value, which is not stored.
  private static func isJSONNull(_ contents: FileContents) -> Bool {
    // Byte by byte: every key opened with a default asks this (a program may open thousands).
    let isJSONWhiteSpace = { (byte: UInt8) in byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 }
    guard contents.count <= 16 else { return false }
    return contents.withUnsafeBytes { bytes in
      guard let first = bytes.firstIndex(where: { !isJSONWhiteSpace($0) }),
        let last = bytes.lastIndex(where: { !isJSONWhiteSpace($0) })
      else { return false }
      return bytes[first...last].elementsEqual("null".utf8)
    }
  }
}
