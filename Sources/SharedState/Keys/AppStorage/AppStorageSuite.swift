import Foundation
import SystemPackage

/// A directory of app storage: one human-readable JSON file per key, shared live by every
/// process that opens the same directory.
///
/// ```swift
/// let suite = try AppStorageSuite(named: "myapp")   // ~/.config/myapp/
/// @Shared(.appStorage("launchCount", store: suite)) var launchCount = 0
/// ```
///
/// ## Where suites live
///
/// ``init(named:filePermissions:directoryPermissions:durability:maximumReadSize:)`` puts a suite
/// where Linux desktop programs keep their settings: `$XDG_CONFIG_HOME/NAME/` when
/// `XDG_CONFIG_HOME` is an absolute path, otherwise `~/.config/NAME/`.
/// ``init(directory:filePermissions:directoryPermissions:durability:maximumReadSize:)`` takes any
/// directory. Nothing is created until a value is written or a key's default stored on its
/// first read.
///
/// ## Layout
///
/// Each key is one file, `KEY.json`, holding the value as JSON (see ``fileName(forKey:)`` for
/// how any key name becomes a file name). Beside each key's file that has been written through
/// this library are two hidden companion files, `.KEY.json.sharedstate-lock` and
/// `.KEY.json.sharedstate-scratch`, which coordinate writers. Shell tools may read a key's file,
/// and write it (preferably by writing another file and renaming it over the key's file).
///
/// ## Permissions
///
/// Directories the suite creates are owner-only (`0700`) and files owner-read-write (`0600`),
/// less the process's umask, unless the initialiser is told otherwise. Existing directories and
/// files keep their permissions, owner and group: a write gives the new file those of the file
/// it replaces, and fails with one sentence, writing nothing, when it cannot without someone
/// losing access (see <doc:SharingAFileBetweenProcesses>).
///
/// ## Reading
///
/// A key reads at most ``maximumReadSize`` bytes (64 MiB by default); a longer file is not read,
/// and the key keeps its last good value with a ``Shared/loadError`` that names both lengths. A
/// key's file that cannot be read (another user's file, a read error, a file over the limit) is
/// never written over.
///
/// ## Identity
///
/// Two suites are the same when they are the same directory of the same storage (the disk, or
/// one in-memory file system); a key's identity includes its suite, so the same key name in two
/// suites is two pieces of state.
public struct AppStorageSuite: Sendable, Hashable, CustomStringConvertible {
  /// The suite's directory. For an in-memory suite, a path inside its in-memory file system.
  public var directory: URL { URL(fileURLWithPath: path.string, isDirectory: true) }

  let path: FilePath
  let storage: FileStorage
  let filePermissions: FilePermissions
  let directoryPermissions: FilePermissions
  let durability: FileDurability
  /// The most bytes a key of the suite reads (see ``FileStorage/defaultMaximumReadSize``).
  public let maximumReadSize: Int
  /// Removes a temporary suite's directory when the last copy of the suite goes away.
  private let removal: TemporaryDirectoryRemoval?

  /// Opens the suite in `directory`.
  ///
  /// - Parameters:
  ///   - directory: A file URL; a relative path is resolved against the current directory.
  ///   - filePermissions: The permissions of the files the suite creates (less the umask).
  ///   - directoryPermissions: The permissions of the directories the suite creates, the suite
  ///     directory and any missing parents (less the umask).
  ///   - durability: How far each write goes before it returns.
  ///   - maximumReadSize: The most bytes a key of the suite reads: a longer file is not read
  ///     (see ``FileStorage/defaultMaximumReadSize``).
  public init(
    directory: URL,
    filePermissions: FilePermissions = .ownerReadWrite,
    directoryPermissions: FilePermissions = .ownerReadWriteExecute,
    durability: FileDurability = .atomic,
    maximumReadSize: Int = FileStorage.defaultMaximumReadSize
  ) {
    self.init(
      path: FilePath(normalizing: directory),
      storage: .fileSystem,
      filePermissions: filePermissions,
      directoryPermissions: directoryPermissions,
      durability: durability,
      maximumReadSize: maximumReadSize,
      removal: nil
    )
  }

  /// Opens the suite called `name` in the user's configuration directory:
  /// `$XDG_CONFIG_HOME/NAME/`, or `~/.config/NAME/` when `XDG_CONFIG_HOME` is unset, empty or
  /// relative.
  ///
  /// - Parameters:
  ///   - name: One directory name, such as the program's name.
  ///   - filePermissions: The permissions of the files the suite creates (less the umask).
  ///   - directoryPermissions: The permissions of the directories the suite creates (less the
  ///     umask).
  ///   - durability: How far each write goes before it returns.
  ///   - maximumReadSize: The most bytes a key of the suite reads: a longer file is not read
  ///     (see ``FileStorage/defaultMaximumReadSize``).
  /// - Throws: ``AppStorageError`` when `name` is not one directory name, or when no home
  ///   directory can be found.
  public init(
    named name: String,
    filePermissions: FilePermissions = .ownerReadWrite,
    directoryPermissions: FilePermissions = .ownerReadWriteExecute,
    durability: FileDurability = .atomic,
    maximumReadSize: Int = FileStorage.defaultMaximumReadSize
  ) throws {
    self.init(
      directory: try Self.configurationDirectory(
        named: name, environment: ProcessInfo.processInfo.environment
      ),
      filePermissions: filePermissions,
      directoryPermissions: directoryPermissions,
      durability: durability,
      maximumReadSize: maximumReadSize
    )
  }

  /// A suite in a file system in memory, for previews and UI tests: it persists nothing and
  /// only this process sees it.
  ///
  /// - Parameter fileSystem: The files; pass one to inspect or prepare them.
  public static func inMemory(_ fileSystem: InMemoryFileSystem = InMemoryFileSystem()) -> Self {
    Self(
      path: "/app-storage",
      storage: .inMemory(fileSystem),
      filePermissions: .ownerReadWrite,
      directoryPermissions: .ownerReadWriteExecute,
      durability: .atomic,
      maximumReadSize: FileStorage.defaultMaximumReadSize,
      removal: nil
    )
  }

  /// A fresh suite in a new directory under the system's temporary directory, removed with
  /// everything in it when the last copy of this value goes away. The `defaultAppStorage` of
  /// each test.
  public static func temporary() -> Self {
    let path = FilePath(FileManager.default.temporaryDirectory.path)
      .appending("sharedstate-app-storage-\(UUID().uuidString)")
      .lexicallyNormalized()
    return Self(
      path: path,
      storage: .fileSystem,
      filePermissions: .ownerReadWrite,
      directoryPermissions: .ownerReadWriteExecute,
      durability: .atomic,
      maximumReadSize: FileStorage.defaultMaximumReadSize,
      removal: TemporaryDirectoryRemoval(path: path)
    )
  }

  private init(
    path: FilePath,
    storage: FileStorage,
    filePermissions: FilePermissions,
    directoryPermissions: FilePermissions,
    durability: FileDurability,
    maximumReadSize: Int,
    removal: TemporaryDirectoryRemoval?
  ) {
    self.path = path
    self.storage = storage
    self.filePermissions = filePermissions
    self.directoryPermissions = directoryPermissions
    self.durability = durability
    // A negative limit reads nothing but empty files, as zero does.
    self.maximumReadSize = max(maximumReadSize, 0)
    self.removal = removal
  }

  /// The name of the file that holds `key` in the suite directory: `KEY.json`, with `/`, `%`,
  /// control characters and a leading `.` written as `%XX`, and the empty key as `%.json`.
  ///
  /// The mapping is reversible and every result is a single file name inside the directory.
  /// Non-ASCII characters are kept as they are.
  ///
  /// - Throws: ``AppStorageError/Reason/keyNameTooLong`` when the encoded name is longer than
  ///   the file system allows (about 230 bytes once encoded).
  public static func fileName(forKey key: String) throws -> String {
    try AppStorageFileName.fileName(forKey: key)
  }

  /// The path of the file that holds `key`.
  func filePath(forKey key: String) throws(AppStorageError) -> FilePath {
    path.appending(try AppStorageFileName.fileName(forKey: key))
  }

  /// Whether two suites are the same directory of the same storage.
  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.path == rhs.path && lhs.storage == rhs.storage
  }

  /// Hashes the suite's identity.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(path)
    hasher.combine(storage)
  }

  /// The directory's path, and "in memory" for an in-memory suite.
  public var description: String {
    storage == .fileSystem ? path.string : "\(path.string) (in memory)"
  }

  /// Where a suite called `name` lives, given the process's environment.
  static func configurationDirectory(
    named name: String,
    environment: [String: String]
  ) throws(AppStorageError) -> URL {
    guard !name.isEmpty, name != ".", name != "..", !name.contains("/"), !name.contains("\0") else {
      throw AppStorageError(.invalidSuiteName, name: name)
    }
    // XDG Base Directory: a relative XDG_CONFIG_HOME is invalid and is ignored.
    if let configuration = environment["XDG_CONFIG_HOME"], configuration.hasPrefix("/") {
      return URL(fileURLWithPath: configuration).appendingPathComponent(name, isDirectory: true)
    }
    guard let home = homeDirectory(environment: environment) else {
      throw AppStorageError(.noConfigurationDirectory, name: name)
    }
    return URL(fileURLWithPath: home)
      .appendingPathComponent(".config", isDirectory: true)
      .appendingPathComponent(name, isDirectory: true)
  }

  private static func homeDirectory(environment: [String: String]) -> String? {
    if let home = environment["HOME"], home.hasPrefix("/") { return home }
    guard let home = try? UserDatabase.homeDirectoryOfRealUser() else { return nil }
    return home.hasPrefix("/") ? home : nil
  }
}

/// Removes a directory and everything in it when it is deinitialised.
private final class TemporaryDirectoryRemoval: Sendable {
  let path: FilePath

  init(path: FilePath) {
    self.path = path
  }

  deinit {
    try? FileManager.default.removeItem(atPath: path.string)
  }
}
