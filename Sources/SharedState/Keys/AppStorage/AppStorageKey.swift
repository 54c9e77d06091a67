import Dependencies
import Foundation

/// A persistence strategy that keeps a value under a key of an ``AppStorageSuite``: one JSON
/// file in the suite's directory, shared live by every process that opens the suite.
///
/// ```swift
/// @Shared(.appStorage("launchCount")) var launchCount = 0
/// @Shared(.appStorage("theme", store: suite)) var theme: Theme = .system
/// ```
///
/// Each key is kept as ``FileStorageKey`` keeps a file, with the same guarantees
/// (<doc:SharingAFileBetweenProcesses#What-you-can-rely-on>): an atomic ``Shared/withLock(_:)`` across processes,
/// writes from anywhere arriving live (one watch per suite directory), and no file that does not
/// decode or cannot be read written over behind the program's back. Where a file key's first
/// read leaves an empty file, the first read of a key that has no file stores the default value (only by
/// creating the file, never replacing one: a value another process stored first wins), so that every process
/// and program reading the suite sees the value the program shows (not in a suite others can
/// write, where a read creates nothing: <doc:SharingAFileBetweenProcesses#Files-others-can-write>); a file deleted
/// later means the default value, and a file made read-only (`0444`) is not replaced. Setting an optional to `nil` removes the key's file. A key whose name cannot be
/// a file name (it is too long) never reads or writes anything: its ``Shared/loadError`` and
/// ``Shared/saveError`` are an ``AppStorageError``.
///
/// Without `store:`, keys use the `defaultAppStorage` dependency's suite: the program's suite
/// in `~/.config`, a fresh temporary suite in each test.
public struct AppStorageKey<Value: Sendable>: SharedKey {
  /// The key's name within its suite.
  public var key: String { parts.key }
  /// The suite that holds the key.
  public var suite: AppStorageSuite { parts.suite }
  /// Everything else, in one object: a reference keeps its key in an existential (more than
  /// once), where a key of two words needs no box of its own, and a program may open thousands.
  private let parts: Parts
  /// The file's key of a reference's own copy (see ``withOwnKnowledge()``), in place of the one
  /// in `parts`: the copy shares the parts, which the registry's id of the key holds anyway.
  private let ownFile: FileStorageKey<Value>?

  private final class Parts: AppStorageKeyIdentity, @unchecked Sendable {
    // `@unchecked`: immutable, as its base is.
    /// The key's file, or why it cannot have one.
    let file: Result<FileStorageKey<Value>, AppStorageError>
    /// Whether the key was given its suite (`store:`), which the description then names.
    let wasGivenSuite: Bool

    init(
      key: String, suite: AppStorageSuite, wasGivenSuite: Bool, file: Result<FileStorageKey<Value>, AppStorageError>
    ) {
      self.wasGivenSuite = wasGivenSuite
      self.file = file
      super.init(suite: suite, key: key)
    }
  }

  private init(parts: Parts, ownFile: FileStorageKey<Value>?) {
    self.parts = parts
    self.ownFile = ownFile
  }

  /// The key's file, or why it cannot have one.
  private var file: Result<FileStorageKey<Value>, AppStorageError> {
    if let ownFile { .success(ownFile) } else { parts.file }
  }
  /// Whether the key was given its suite (`store:`), which the description then names.
  private var wasGivenSuite: Bool { parts.wasGivenSuite }

  init(_ key: String, suite givenSuite: AppStorageSuite?, format: AppStorageFormat<Value>) {
    let suite: AppStorageSuite
    if let givenSuite {
      suite = givenSuite
    } else {
      // Read only when needed: a dependency's read costs about a twentieth of opening a key.
      @Dependency(\.defaultAppStorage) var defaultSuite
      suite = defaultSuite
    }
    let file = Result { () throws(AppStorageError) in
      FileStorageKey(
        path: try suite.filePath(forKey: key),
        storage: suite.storage,
        decode: format.decode,
        encode: format.encode,
        durability: suite.durability,
        filePermissions: suite.filePermissions,
        directoryPermissions: suite.directoryPermissions,
        maximumReadSize: suite.maximumReadSize
      )
    }
    parts = Parts(key: key, suite: suite, wasGivenSuite: givenSuite != nil, file: file)
    ownFile = nil
  }

  /// The suite and the key's name: the same name in two suites is two pieces of state.
  public var id: AppStorageKeyID {
    AppStorageKeyID(identity: parts)
  }

  /// Reads and decodes the key's file. When there is no file, the first read stores the default
  /// value, unless another process stored a value meanwhile, which is then the one read.
  public func load(context: LoadContext<Value>, continuation: LoadContinuation<Value>) {
    switch file {
    case let .success(file): file.loadStoringInitialValue(context: context, continuation: continuation)
    case let .failure(error): continuation.resume(throwing: error)
    }
  }

  /// Delivers each change another process or program makes to the key's file.
  public func subscribe(
    context: LoadContext<Value>,
    subscriber: SharedSubscriber<Value>
  ) -> SharedSubscription {
    guard case let .success(file) = file else { return .empty }
    let watching = file.startSubscription(subscriber)
    // The suite's own API writing in this process: read the file at once, under the
    // reference's lock (as the watcher's deliveries are), so that no write overtakes another.
    let localWrites = AppStorageLocalWrites.shared.listen(storage: suite.storage, path: file.target) { write in
      switch write {
      case .begins: watching.ownWriteBegins()
      case let .ends(wrote): watching.ownWriteEnds(wrote: wrote)
      }
    }
    return SharedSubscription {
      watching.cancel()
      AppStorageLocalWrites.shared.stopListening(localWrites)
    }
  }

  /// Encodes the value and replaces the key's file with it (or removes the file, for `nil`).
  public func save(_ value: Value, context: SaveContext, continuation: SaveContinuation) {
    switch file {
    case let .success(file): file.save(value, context: context, continuation: continuation)
    case let .failure(error): continuation.resume(throwing: error)
    }
  }
}

extension AppStorageKey: CrossProcessKey {
  /// This key with a handle on its file of its own (see ``CrossProcessKey/withOwnKnowledge()``).
  package func withOwnKnowledge() -> Self {
    AppStorageKey(parts: parts, ownFile: try? file.get().withOwnKnowledge())
  }

  package func beginTransaction(receivingChange receive: (Result<Value?, any Error>) -> Void) -> any KeyTransaction {
    switch file {
    case let .success(file): file.beginTransaction(receivingChange: receive)
    // A key that has no file has no current value either.
    case let .failure(error): FailedKeyTransaction(error)
    }
  }

  package func commit(_ value: Value, through transaction: any KeyTransaction) throws {
    switch file {
    case let .success(file): try file.commit(value, through: transaction)
    case let .failure(error): throw error
    }
  }
}

extension AppStorageKey: CustomStringConvertible {
  /// `.appStorage("key")`, with the suite when the key was given one, as it was written.
  public var description: String {
    wasGivenSuite
      ? ".appStorage(\(String(reflecting: key)), store: \(suite))"
      : ".appStorage(\(String(reflecting: key)))"
  }
}

/// The identity of an ``AppStorageKey``: its suite and its name.
///
/// Names compare byte for byte (as their files do), not by Unicode canonical equivalence.
public struct AppStorageKeyID: Hashable, Sendable {
  /// The suite that holds the key.
  public var suite: AppStorageSuite { identity.suite }
  /// The key's name.
  public var key: String { identity.key }
  /// The key's own suite and name: one word, which a type-erased id holds without a box of its
  /// own (a program may open thousands of keys).
  private let identity: AppStorageKeyIdentity

  init(identity: AppStorageKeyIdentity) {
    self.identity = identity
  }

  /// Whether both are the same key of the same suite.
  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.identity === rhs.identity || (lhs.suite == rhs.suite && lhs.key.utf8.elementsEqual(rhs.key.utf8))
  }

  /// Hashes the suite and the name's bytes.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(suite)
    for byte in key.utf8 { hasher.combine(byte) }
    hasher.combine(key.utf8.count)
  }
}

/// The suite and the name of an app-storage key: the base of the key's own parts, which its id
/// shares.
///
/// `@unchecked Sendable`: a class open to the key's parts, whose properties are all immutable.
class AppStorageKeyIdentity: @unchecked Sendable {
  let suite: AppStorageSuite
  let key: String

  init(suite: AppStorageSuite, key: String) {
    self.suite = suite
    self.key = key
  }
}
