import Foundation
import Synchronization

/// Reading, writing and observing a suite's keys directly, for code that does not use
/// `@Shared`. Values are stored exactly as ``AppStorageKey`` stores them, so both kinds of code
/// can share keys; every write is atomic and coordinated with every other process.
extension AppStorageSuite {
  // MARK: Reading

  /// The value stored under `key`, or `nil` when there is none.
  ///
  /// - Throws: ``AppStorageError`` for a key that cannot be a file name; ``FileStorageError``
  ///   when the file cannot be read; the decoder's error, its description beginning with the
  ///   file's path, when the file does not decode as `Value`.
  public func value<Value: Codable & Sendable>(
    forKey key: String,
    as _: Value.Type = Value.self
  ) throws -> Value? {
    try value(forKey: key, format: .json)
  }

  /// The `RawRepresentable` value stored under `key`, or `nil` when there is none.
  ///
  /// - Throws: As `value(forKey:as:)`.
  public func value<Value: RawRepresentable & Sendable>(
    forKey key: String,
    as _: Value.Type = Value.self
  ) throws -> Value? where Value.RawValue: Codable & Sendable {
    try value(forKey: key, format: .rawValue)
  }

  /// The value stored under `key`, for a type that is `RawRepresentable` and `Codable`.
  ///
  /// - Throws: As `value(forKey:as:)`.
  public func value<Value: RawRepresentable & Codable & Sendable>(
    forKey key: String,
    as _: Value.Type = Value.self
  ) throws -> Value? where Value.RawValue: Codable & Sendable {
    try value(forKey: key, format: .rawValue)
  }

  // MARK: Writing

  /// Stores `value` under `key`, replacing the file atomically; a `nil` optional removes it.
  ///
  /// This is the throwing form of `UserDefaults`' name `set(_:forKey:)`, which
  /// reports a failure instead.
  ///
  /// - Throws: ``AppStorageError`` for a key that cannot be a file name; ``FileStorageError``
  ///   when the value cannot be encoded or the file cannot be written, or when the file there
  ///   cannot be read (it is not written over then).
  public func write<Value: Codable & Sendable>(_ value: Value, forKey key: String) throws {
    try set(value, forKey: key, format: .json)
  }

  /// Stores a `RawRepresentable` value under `key`, as its raw value.
  ///
  /// - Throws: As `write(_:forKey:)`.
  public func write<Value: RawRepresentable & Sendable>(
    _ value: Value,
    forKey key: String
  ) throws where Value.RawValue: Codable & Sendable {
    try set(value, forKey: key, format: .rawValue)
  }

  /// Stores a value that is `RawRepresentable` and `Codable` under `key`, as its raw value.
  ///
  /// - Throws: As `write(_:forKey:)`.
  public func write<Value: RawRepresentable & Codable & Sendable>(
    _ value: Value,
    forKey key: String
  ) throws where Value.RawValue: Codable & Sendable {
    try set(value, forKey: key, format: .rawValue)
  }

  /// Removes the value stored under `key`; nothing happens when there is none.
  ///
  /// - Throws: ``AppStorageError`` for a key that cannot be a file name; ``FileStorageError``
  ///   when the file cannot be removed, or cannot be read (it is not removed then).
  public func removeValue(forKey key: String) throws {
    try set(nil as Int?, forKey: key, format: .optional(.json))
  }

  // MARK: Listing

  /// The names of the keys that have a value, sorted.
  ///
  /// Files that are no key's file (companion files, hidden files, editors' backups, names that
  /// are not what ``fileName(forKey:)`` makes of any key) are left out.
  ///
  /// - Throws: The system's error when the directory cannot be read. A suite whose directory
  ///   does not exist yet has no keys.
  public func keys() throws -> [String] {
    try storage.entryNames(in: path).compactMap(AppStorageFileName.key(forFileName:)).sorted {
      $0.utf8.lexicographicallyPrecedes($1.utf8)
    }
  }

  // MARK: Observing

  /// The value stored under `key` now, then each value another process, another program or
  /// this one stores, as it happens; `nil` while there is none.
  ///
  /// Contents that do not decode as `Value` are skipped, so the last element stays the last
  /// good value. The sequence ends with an error for a key that cannot be a file name or a
  /// suite that cannot be watched.
  public func values<Value: Codable & Sendable>(
    forKey key: String,
    as _: Value.Type = Value.self
  ) -> AsyncThrowingStream<Value?, any Error> {
    values(forKey: key, format: .json)
  }

  /// The `RawRepresentable` value stored under `key` now, then each change: see
  /// ``values(forKey:as:)-(_,Value.Type)``.
  public func values<Value: RawRepresentable & Sendable>(
    forKey key: String,
    as _: Value.Type = Value.self
  ) -> AsyncThrowingStream<Value?, any Error> where Value.RawValue: Codable & Sendable {
    values(forKey: key, format: .rawValue)
  }

  /// The value stored under `key` now, then each change, for a type that is `RawRepresentable`
  /// and `Codable`: see ``values(forKey:as:)-(_,Value.Type)``.
  public func values<Value: RawRepresentable & Codable & Sendable>(
    forKey key: String,
    as _: Value.Type = Value.self
  ) -> AsyncThrowingStream<Value?, any Error> where Value.RawValue: Codable & Sendable {
    values(forKey: key, format: .rawValue)
  }

  // MARK: Implementation

  func storedFile(forKey key: String) throws(AppStorageError) -> any StoredFile {
    storage.file(
      at: try filePath(forKey: key),
      durability: durability,
      filePermissions: filePermissions,
      directoryPermissions: directoryPermissions,
      maximumReadSize: maximumReadSize
    )
  }

  private func value<Value>(forKey key: String, format: AppStorageFormat<Value>) throws -> Value? {
    let file = try storedFile(forKey: key)
    let state: FileState
    do {
      state = try file.read()
    } catch {
      throw FileStorageError(.unreadable, path: file.path, underlying: error)
    }
    guard case let .contents(contents) = state else { return nil }
    do {
      return try format.decode(contents)
    } catch {
      throw DecodingError.naming(file.path, in: error)
    }
  }

  private func set<Value>(_ value: Value, forKey key: String, format: AppStorageFormat<Value>) throws {
    let file = try storedFile(forKey: key)
    // The key's references hear of the write before it begins, and once it is over (after its
    // transaction ended), whether it wrote or not.
    AppStorageLocalWrites.shared.tell(.begins, storage: storage, path: file.path)
    var wrote = false
    defer { AppStorageLocalWrites.shared.tell(.ends(wrote: wrote), storage: storage, path: file.path) }
    do {
      let data = try format.encode(value)
      let transaction = file.beginTransaction()
      defer { transaction.end() }
      // What cannot be read is not written over: it may hold a value this process cannot see.
      if let failure = transaction.readFailure {
        throw FileStorageError.readFailure(failure, path: file.path)
      }
      try transaction.commit(data.map(FileState.contents) ?? .missing)
      wrote = true
    } catch let error as FileStorageError {
      throw error
    } catch let error as DirectoryNotFlushed {
      // Written all the same: the suite's other keys are told, then the caller.
      wrote = true
      throw FileStorageError(.unwritable, path: file.path, underlying: error)
    } catch {
      throw FileStorageError(.unwritable, path: file.path, underlying: error)
    }
  }

  private func values<Value: Sendable>(
    forKey key: String,
    format: AppStorageFormat<Value>
  ) -> AsyncThrowingStream<Value?, any Error> {
    AsyncThrowingStream { continuation in
      let file: any StoredFile
      do {
        file = try storedFile(forKey: key)
      } catch {
        continuation.finish(throwing: error)
        return
      }
      // One delivery at a time, so that the first value and the changes arrive in order; a
      // change reported before the first value is read is covered by that first read.
      let hasDeliveredFirst = Mutex(false)
      let deliver: @Sendable (_ isFirst: Bool) -> Void = { isFirst in
        hasDeliveredFirst.withLock { hasDeliveredFirst in
          guard isFirst || hasDeliveredFirst else { return }
          hasDeliveredFirst = true
          let state = isFirst ? try? file.read() : try? file.readIfChanged()
          switch state {
          case .missing: continuation.yield(nil)
          case let .contents(contents): if let value = try? format.decode(contents) { continuation.yield(value) }
          // A read returns bytes; a digest is only what the handle keeps.
          case .digest, nil: break
          }
        }
      }
      // Watch first, then read, so that no change falls between.
      let token = file.watch { event in
        if case let .unwatched(failure) = event {
          continuation.finish(throwing: failure)
        } else {
          deliver(false)
        }
      }
      continuation.onTermination = { _ in token.cancel() }
      deliver(true)
    }
  }
}
