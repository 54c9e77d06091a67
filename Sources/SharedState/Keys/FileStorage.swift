import Dependencies
import Foundation
import SystemPackage

/// Where `.fileStorage` keys keep their files: the real file system, shared with every process,
/// or a file system in memory that persists nothing.
///
/// Select it with the `defaultFileStorage` dependency. Programs use ``fileSystem``; tests and
/// previews get a fresh ``inMemory(_:)`` storage by default, so that they never touch the disk.
public struct FileStorage: Sendable, Hashable {
  private enum Kind: Hashable {
    case fileSystem
    case inMemory(ObjectIdentifier)
  }

  private let kind: Kind
  private let inMemoryFileSystem: InMemoryFileSystem?

  /// The real file system: files are shared live with every process that uses them.
  public static let fileSystem = FileStorage(kind: .fileSystem, inMemoryFileSystem: nil)

  /// A file system in memory that persists nothing.
  ///
  /// - Parameter fileSystem: The files; pass one to inspect or prepare them in a test.
  public static func inMemory(_ fileSystem: InMemoryFileSystem = InMemoryFileSystem()) -> FileStorage {
    FileStorage(kind: .inMemory(ObjectIdentifier(fileSystem)), inMemoryFileSystem: fileSystem)
  }

  /// Whether two storages are the same one.
  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.kind == rhs.kind
  }

  /// Hashes the storage's identity.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(kind)
  }

  /// The most bytes a key reads unless told otherwise: 64 MiB, ample for settings and
  /// documents.
  ///
  /// A longer file is not read at all (its length is checked with `fstat` first, and nothing is
  /// allocated for it): the key keeps its last good value and its ``Shared/loadError`` names the
  /// file's length and the limit; ``Shared/withLock(_:)`` and plain writes do not replace it.
  /// Without a limit, anyone who can write a shared directory could make every process that
  /// watches a key read a sparse file of terabytes (which costs no disk space). Set another
  /// limit per key (`maximumReadSize:` of ``SharedReaderKey/fileStorage(_:decoder:encoder:durability:maximumReadSize:)``)
  /// or per suite (``AppStorageSuite/init(directory:filePermissions:directoryPermissions:durability:maximumReadSize:)``).
  public static let defaultMaximumReadSize = 64 << 20

  /// A handle on the file at `path`.
  func file(
    at path: FilePath,
    durability: FileDurability,
    filePermissions: FilePermissions,
    directoryPermissions: FilePermissions,
    maximumReadSize: Int
  ) -> any StoredFile {
    if let inMemoryFileSystem {
      return InMemoryFile(path: path.string, fileSystem: inMemoryFileSystem, maximumReadSize: maximumReadSize)
    }
    return DiskFile(
      path: path,
      durability: durability,
      filePermissions: filePermissions,
      directoryPermissions: directoryPermissions,
      maximumReadSize: maximumReadSize
    )
  }
}

extension FileStorage {
  /// The names of the files in `directory`, as bytes; none when it does not exist.
  func entryNames(in directory: FilePath) throws -> [[UInt8]] {
    if let inMemoryFileSystem {
      return inMemoryFileSystem.paths.compactMap { path in
        guard let (parent, name) = FilePath(path).directoryAndName, parent == directory else { return nil }
        return Array(name.utf8)
      }
    }
    let names: [[UInt8]]
    do {
      names = try directory.directoryEntryNames()
    } catch {
      if error == .noSuchFileOrDirectory { return [] }
      throw error
    }
    return names
  }
}

extension DependencyValues {
  /// The storage that `.fileStorage` keys use: the real file system in a program, a fresh
  /// in-memory file system in each test and preview.
  public var defaultFileStorage: FileStorage {
    get { self[FileStorageDependencyKey.self] }
    set { self[FileStorageDependencyKey.self] = newValue }
  }
}

private enum FileStorageDependencyKey: DependencyKey {
  static let liveValue = FileStorage.fileSystem
  static var testValue: FileStorage { .inMemory() }
  static var previewValue: FileStorage { .inMemory() }
}
