import Dependencies
import Foundation
import SystemPackage
import Synchronization

/// A persistence strategy that keeps a value in a file, shared live by every process that uses
/// the same file.
///
/// ```swift
/// @Shared(.fileStorage(URL(filePath: "/var/lib/myapp/todos.json")))
/// var todos: IdentifiedArrayOf<Todo> = []
/// ```
///
/// ``Shared/withLock(_:)`` is an atomic read-modify-write across threads and processes, writes
/// replace the file atomically, and writes from anywhere reach every process's value and
/// observers live. A missing or empty file means the default value (the first read leaves an
/// empty file where there is none, as swift-sharing does, never over anything); a file that
/// does not decode, or cannot be read, is never written over behind the program's back, and a
/// file whose mode lets nobody write it (`0444`: locked down) is not replaced: the write fails
/// with one sentence. The guarantees, stated once:
/// <doc:SharingAFileBetweenProcesses#What-you-can-rely-on>.
///
/// Files live in the `defaultFileStorage` dependency: the real file system in programs, an
/// in-memory one in tests and previews.
public struct FileStorageKey<Value: Sendable>: SharedKey {
  /// The file's absolute, lexically normal path.
  public var path: String { parts.target.string }
  /// The file's path, as the storage layer has it (one copy shared with it).
  var target: FilePath { parts.target }
  private var storage: FileStorage { parts.storage }
  var file: any StoredFile { parts.file }
  private var decode: @Sendable (FileContents) throws -> Value { parts.decode }
  /// `nil` bytes mean "remove the file".
  var encode: @Sendable (Value) throws -> FileContents? { parts.encode }
  /// The most bytes the key reads: a longer file is not read, and the key keeps its last good
  /// value (see ``FileStorage/defaultMaximumReadSize``).
  public var maximumReadSize: Int { parts.maximumReadSize }
  /// Everything, in one object: a reference keeps its key in an existential (more than once),
  /// where a key of one word needs no box of its own, and a program may open thousands.
  private let parts: Parts

  private final class Parts: Sendable {
    let target: FilePath
    let storage: FileStorage
    let decode: @Sendable (FileContents) throws -> Value
    let encode: @Sendable (Value) throws -> FileContents?
    let maximumReadSize: Int
    let durability: FileDurability
    let filePermissions: FilePermissions
    let directoryPermissions: FilePermissions
    /// Whether this key has read the file yet (a reference's copy starts from its original's):
    /// a subscription catches up only with what changed since a read.
    let hasLoaded: Atomic<Bool>
    /// Whether a subscription watches through `file`: each later subscription through this key
    /// (or a copy) gets a handle of its own (see ``FileStorageKey/startSubscription(_:keepingPlaceholder:)``).
    let isFileSubscribed = Atomic<Bool>(false)
    /// The handle of a reference's own copy, made with it (see ``FileStorageKey/withOwnKnowledge()``).
    private let ownFile: (any StoredFile)?
    /// The handle of a key value a program made, made when first used: a key made only to name
    /// the state of a `@Shared` never needs one, since its reference takes a copy of its own.
    private let madeOnUse = Mutex<(any StoredFile)?>(nil)

    init(
      target: FilePath,
      storage: FileStorage,
      decode: @escaping @Sendable (FileContents) throws -> Value,
      encode: @escaping @Sendable (Value) throws -> FileContents?,
      maximumReadSize: Int,
      durability: FileDurability,
      filePermissions: FilePermissions,
      directoryPermissions: FilePermissions
    ) {
      self.target = target
      self.storage = storage
      self.decode = decode
      self.encode = encode
      self.maximumReadSize = maximumReadSize
      self.durability = durability
      self.filePermissions = filePermissions
      self.directoryPermissions = directoryPermissions
      hasLoaded = Atomic(false)
      ownFile = nil
    }

    /// A copy of `parts` with a handle of its own, which knows nothing yet: its first look reads
    /// the file (a knowledge taken from another handle could be newer than what the copy's
    /// holder holds, and a transaction would then write over a change it never delivered).
    private init(copying parts: Parts) {
      target = parts.target
      storage = parts.storage
      decode = parts.decode
      encode = parts.encode
      maximumReadSize = parts.maximumReadSize
      durability = parts.durability
      filePermissions = parts.filePermissions
      directoryPermissions = parts.directoryPermissions
      hasLoaded = Atomic(parts.hasLoaded.load(ordering: .acquiring))
      ownFile = parts.makeFile()
    }

    /// The handle on the file.
    var file: any StoredFile {
      if let ownFile { return ownFile }
      return madeOnUse.withLock { made in
        if let made { return made }
        let file = makeFile()
        made = file
        return file
      }
    }

    /// These parts with a handle of their own.
    func withOwnFile() -> Parts {
      Parts(copying: self)
    }

    private func makeFile() -> any StoredFile {
      storage.file(
        at: target,
        durability: durability,
        filePermissions: filePermissions,
        directoryPermissions: directoryPermissions,
        maximumReadSize: maximumReadSize
      )
    }
  }

  private init(parts: Parts) {
    self.parts = parts
  }

  /// Creates a key for the file at `url`, with closures that turn values into bytes and back.
  ///
  /// - Parameters:
  ///   - url: A file URL; relative paths are resolved against the current directory.
  ///   - decode: Turns the file's bytes into a value.
  ///   - encode: Turns a value into the file's bytes.
  ///   - durability: How far each write goes before it returns.
  ///   - maximumReadSize: The most bytes the key reads (see
  ///     ``FileStorage/defaultMaximumReadSize``).
  public init(
    url: URL,
    decode: @escaping @Sendable (Data) throws -> Value,
    encode: @escaping @Sendable (Value) throws -> Data,
    durability: FileDurability = .atomic,
    maximumReadSize: Int = FileStorage.defaultMaximumReadSize
  ) {
    self.init(
      url: url,
      contents: { try decode($0.data) },
      encode: { FileContents(try encode($0)) },
      durability: durability,
      maximumReadSize: maximumReadSize
    )
  }

  /// ``init(url:decode:encode:durability:maximumReadSize:)`` with closures that take and make
  /// the contents as the storage carries them (short ones need no `Data` made).
  fileprivate init(
    url: URL,
    contents decode: @escaping @Sendable (FileContents) throws -> Value,
    encode: @escaping @Sendable (Value) throws -> FileContents,
    durability: FileDurability,
    maximumReadSize: Int
  ) {
    @Dependency(\.defaultFileStorage) var storage
    self.init(
      path: FilePath(normalizing: url),
      storage: storage,
      decode: decode,
      encode: encode,
      durability: durability,
      filePermissions: [.ownerReadWrite, .groupReadWrite, .otherReadWrite],
      directoryPermissions: [.ownerReadWriteExecute, .groupReadWriteExecute, .otherReadWriteExecute],
      maximumReadSize: maximumReadSize
    )
  }

  /// Creates a key for a normalised path in `storage`, with the permissions of what it creates.
  ///
  /// `encode` returns `nil` for a value that is stored as no file at all: saving it removes the
  /// file.
  init(
    path: FilePath,
    storage: FileStorage,
    decode: @escaping @Sendable (FileContents) throws -> Value,
    encode: @escaping @Sendable (Value) throws -> FileContents?,
    durability: FileDurability,
    filePermissions: FilePermissions,
    directoryPermissions: FilePermissions,
    maximumReadSize: Int
  ) {
    // A negative limit reads nothing but empty files, as zero does.
    let limit = max(maximumReadSize, 0)
    parts = Parts(
      target: path,
      storage: storage,
      decode: decode,
      encode: encode,
      maximumReadSize: limit,
      durability: durability,
      filePermissions: filePermissions,
      directoryPermissions: directoryPermissions
    )
  }

  /// The path and the storage: the same path in two storages is two pieces of state.
  public var id: FileStorageKeyID {
    FileStorageKeyID(path: path, storage: storage)
  }

  /// Reads and decodes the file; a missing or empty file keeps the default value.
  ///
  /// A first read with an initial value (a `@Shared` declaration, not ``Shared/load(_:)``)
  /// that finds no file leaves an empty one, as swift-sharing does: only by creating it, never
  /// replacing a file that appeared meanwhile, and silently not at all
  /// where the directory cannot be written, where other users can write it, or through a
  /// symbolic link another user planted
  /// (<doc:SharingAFileBetweenProcesses#Files-others-can-write>). A file holding swift-sharing's
  /// placeholder bytes is emptied the same way. See
  /// <doc:SharingAFileBetweenProcesses#Files-missing-files-and-bad-files>.
  public func load(context: LoadContext<Value>, continuation: LoadContinuation<Value>) {
    guard context.initialValue != nil else {
      markLoaded()
      continuation.resume(with: decodedRead { try file.read() } ?? .success(nil))
      return
    }
    loadWriting(context: context, continuation: continuation) { _, state in
      FilePlaceholder.isReplaced(state) ? FilePlaceholder.contents : nil
    }
  }

  /// Notes that this key (or a copy) has read the file: see ``startSubscription(_:keepingPlaceholder:)``.
  func markLoaded() {
    parts.hasLoaded.store(true, ordering: .releasing)
  }

  /// Watches the file's directory and delivers each change another process or program makes.
  ///
  /// When the key was read with an initial value, a file deleted or moved away while it is
  /// watched is replaced by the empty placeholder again (see ``load(context:continuation:)``),
  /// and the state returns to its default value.
  ///
  /// While the file cannot be watched (inotify's limits are reached, say), the state's
  /// ``Shared/loadError`` is a ``FileStorageError`` whose reason is
  /// ``FileStorageError/Reason/unwatched``; watching is retried, and once it resumes the value
  /// is read again and the error cleared.
  public func subscribe(
    context: LoadContext<Value>,
    subscriber: SharedSubscriber<Value>
  ) -> SharedSubscription {
    let subscription = startSubscription(subscriber, keepingPlaceholder: context.initialValue != nil)
    return SharedSubscription { subscription.cancel() }
  }

  /// Starts a subscription: see ``subscribe(context:subscriber:)``.
  ///
  /// - Parameter keepingPlaceholder: Whether a file found missing is replaced by the empty
  ///   placeholder again (file storage); app storage keys leave a deleted key deleted.
  func startSubscription(
    _ subscriber: SharedSubscriber<Value>,
    keepingPlaceholder: Bool = false
  ) -> FileKeySubscription<Value> {
    let hasLoaded = parts.hasLoaded.load(ordering: .acquiring)
    // The first subscription watches through this key's handle (a reference's, whose
    // transactions use it too); each later one through a handle of its own, so that what one
    // takes in is no news that the other then misses.
    let isFirst = !parts.isFileSubscribed.exchange(true, ordering: .acquiringAndReleasing)
    let key = isFirst ? self : withOwnKnowledge()
    let subscription = FileKeySubscription(key: key, subscriber: subscriber, keepingPlaceholder: keepingPlaceholder)
    subscription.start(catchingUp: hasLoaded)
    return subscription
  }

  /// Encodes the value and replaces the file with it, in a transaction of its own.
  ///
  /// A file that cannot be read is not replaced: the save fails with the
  /// ``FileStorageError/Reason/unreadable`` error (see ``FileStorageKey``).
  public func save(_ value: Value, context: SaveContext, continuation: SaveContinuation) {
    let outcome: Result<Void, any Error>
    do {
      let transaction = file.beginTransaction()
      defer { transaction.end() }
      try commit(value, through: transaction)
      outcome = .success(())
    } catch let stored as StoredWithSaveError {
      outcome = .failure(stored.saveError)
    } catch {
      outcome = .failure(error)
    }
    // Once the transaction has ended: a continuation may take a reference's lock, which is
    // everywhere else taken before the file's (a `withLock`, a change taken in), so taking it
    // while this still held the file's lock could deadlock with them. (A reference saves a
    // key like this one in a transaction of its own; a program may call `save` directly.)
    continuation.resume(with: outcome)
  }

  /// Encodes `value` and commits it through `transaction`.
  ///
  /// - Throws: ``FileStorageError`` (unreadable) when the transaction could not read the file,
  ///   which is then not written over; (unwritable) when the value cannot be encoded or the file
  ///   cannot be written; ``StoredWithSaveError`` (holding an unwritable one) when the file was
  ///   written but its directory could not be flushed to the disk.
  private func commit(_ value: Value, through transaction: any FileTransaction) throws {
    // The storage refuses it too; this says why in the key's words.
    if let failure = transaction.readFailure { throw unreadable(failure) }
    do {
      try transaction.commit(try encode(value).map(FileState.contents) ?? .missing)
    } catch let error as DirectoryNotFlushed {
      throw StoredWithSaveError(FileStorageError(.unwritable, path: path, underlying: error))
    } catch {
      throw FileStorageError(.unwritable, path: path, underlying: error)
    }
  }

  /// What `read` finds, decoded (see ``decoded(_:)``), or its failure as an unreadable
  /// ``FileStorageError``; `nil` when `read` finds nothing new.
  func decodedRead(_ read: () throws -> FileState?) -> Result<Value?, any Error>? {
    do {
      return try read().map(decoded)
    } catch {
      return .failure(unreadable(error))
    }
  }

  /// The error for a storage failure to read the file.
  func unreadable(_ error: any Error) -> FileStorageError {
    FileStorageError.readFailure(error, path: path)
  }

  /// Turns what the file holds into what a reference takes: a value, `nil` for the default, or
  /// the decoder's error, its description beginning with the file's path (see
  /// `DecodingError.naming(_:in:)`).
  ///
  /// An empty file holds no value, as a missing one: a program that creates the file before it
  /// has anything to write (`touch`, this library's placeholder or swift-sharing's) has not
  /// written a value.
  ///
  /// Contents that do not decode are not reported as an issue, as swift-sharing reports none:
  /// they are a fact about the data, which the program may handle through ``Shared/loadError``
  /// (and a test of that handling must not fail for it), not a mistake in the program.
  func decoded(_ state: FileState) -> Result<Value?, any Error> {
    guard case let .contents(contents) = state, !FilePlaceholder.holdsNoValue(contents) else { return .success(nil) }
    do {
      return .success(try decode(contents))
    } catch {
      return .failure(DecodingError.naming(path, in: error))
    }
  }
}

extension FileStorageKey: CrossProcessKey {
  /// This key with a handle on the file of its own (see ``CrossProcessKey/withOwnKnowledge()``).
  package func withOwnKnowledge() -> Self {
    FileStorageKey(parts: parts.withOwnFile())
  }

  package func beginTransaction(receivingChange receive: (Result<Value?, any Error>) -> Void) -> any KeyTransaction {
    let transaction = file.beginTransaction()
    // A change that could not be read is the read failure; undecodable contents are not: they
    // are received, and a write on purpose may replace them.
    if case let .success(state)? = transaction.change { receiveDecoded(state, receive) }
    // Not `readFailure.map(unreadable)`: that closure's context would be allocated on every write.
    guard let failure = transaction.readFailure else {
      // The file's transaction serves as the key's when it has no failure to put in the key's
      // words: no second object allocated on every write.
      if let onDisk = transaction as? DiskFileTransaction { return onDisk }
      return FileKeyTransaction(file: transaction, readFailure: nil)
    }
    return FileKeyTransaction(file: transaction, readFailure: unreadable(failure))
  }

  /// Decodes a change for ``beginTransaction(receivingChange:)``. Never inlined: the generic
  /// types it forms would otherwise be looked up on every transaction, changed or not.
  @inline(never)
  private func receiveDecoded(_ state: FileState, _ receive: (Result<Value?, any Error>) -> Void) {
    receive(decoded(state))
  }

  package func commit(_ value: Value, through transaction: any KeyTransaction) throws {
    if let onDisk = transaction as? DiskFileTransaction { return try commit(value, through: onDisk as any FileTransaction) }
    guard let transaction = transaction as? FileKeyTransaction else {
      throw transaction.readFailure ?? TransactionOfAnotherKey()
    }
    try commit(value, through: transaction.file)
  }
}

extension FileStorageKey: CustomStringConvertible {
  /// `.fileStorage(file:///path)`, as swift-sharing writes it.
  public var description: String { ".fileStorage(\(URL(fileURLWithPath: path)))" }
}

/// The identity of a ``FileStorageKey``: its normalised path within one storage.
public struct FileStorageKeyID: Hashable, Sendable {
  /// The file's absolute, lexically normal path.
  public let path: String
  /// The storage that holds it.
  public let storage: FileStorage
}

extension SharedReaderKey {
  /// A key for a `Codable` value stored as JSON in a file: see ``FileStorageKey``.
  ///
  /// - Parameters:
  ///   - url: A file URL.
  ///   - decoder: The decoder for the file's JSON.
  ///   - encoder: The encoder for the file's JSON.
  ///   - durability: How far each write goes before it returns.
  ///   - maximumReadSize: The most bytes the key reads (see
  ///     ``FileStorage/defaultMaximumReadSize``).
  public static func fileStorage<Value: Codable & Sendable>(
    _ url: URL,
    decoder: JSONDecoder = JSONDecoder(),
    encoder: JSONEncoder = JSONEncoder(),
    durability: FileDurability = .atomic,
    maximumReadSize: Int = FileStorage.defaultMaximumReadSize
  ) -> Self where Self == FileStorageKey<Value> {
    // An `Int`, a `Bool`, a `Double` or a `String` is written and read without the coders when
    // they are Foundation's own (a subclass may write otherwise): the same bytes, at a fraction
    // of the cost (see `PlainJSON`). Their options are asked once, here.
    let kind = PlainJSON.kind(of: Value.self)
    let encodingKind = type(of: encoder) == JSONEncoder.self ? kind : nil
    let decodingKind = type(of: decoder) == JSONDecoder.self && !decoder.assumesTopLevelDictionary ? kind : nil
    let escapesSlashes = !encoder.outputFormatting.contains(.withoutEscapingSlashes)
    return FileStorageKey(
      url: url,
      contents: { contents in
        if let decodingKind, let parsed = PlainJSON.parse(contents, as: decodingKind) { return parsed.value(as: Value.self) }
        return try decoder.decode(Value.self, from: contents.data)
      },
      encode: { value in
        if let encodingKind,
          let text = PlainJSON.text(of: value, as: encodingKind, escapingSlashes: escapesSlashes, endingLine: false)
        {
          return text
        }
        return FileContents(try encoder.encode(value))
      },
      durability: durability,
      maximumReadSize: maximumReadSize
    )
  }

  /// A key for a value stored in a file in a format of your own: see ``FileStorageKey``.
  ///
  /// - Parameters:
  ///   - url: A file URL.
  ///   - decode: Turns the file's bytes into a value.
  ///   - encode: Turns a value into the file's bytes.
  ///   - durability: How far each write goes before it returns.
  ///   - maximumReadSize: The most bytes the key reads (see
  ///     ``FileStorage/defaultMaximumReadSize``).
  public static func fileStorage<Value: Sendable>(
    _ url: URL,
    decode: @escaping @Sendable (Data) throws -> Value,
    encode: @escaping @Sendable (Value) throws -> Data,
    durability: FileDurability = .atomic,
    maximumReadSize: Int = FileStorage.defaultMaximumReadSize
  ) -> Self where Self == FileStorageKey<Value> {
    FileStorageKey(url: url, decode: decode, encode: encode, durability: durability, maximumReadSize: maximumReadSize)
  }
}
