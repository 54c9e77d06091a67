import SystemPackage

@testable import SharedState

extension DiskFile {
  /// A handle on `target` as a test makes one: atomic writes, files and directories for the owner
  /// only, the default read limit.
  static func forTesting(_ target: FilePath) -> DiskFile {
    DiskFile(
      path: target, durability: .atomic, filePermissions: [.ownerReadWrite],
      directoryPermissions: [.ownerReadWriteExecute], maximumReadSize: FileStorage.defaultMaximumReadSize
    )
  }
}
