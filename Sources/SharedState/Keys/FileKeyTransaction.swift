/// A `withLock` of a file or app-storage key: the file's transaction, with its read failure in
/// the key's words (a ``FileStorageError``).
final class FileKeyTransaction: KeyTransaction {
  let file: any FileTransaction
  let readFailure: (any Error)?

  init(file: any FileTransaction, readFailure: FileStorageError?) {
    self.file = file
    self.readFailure = readFailure
  }

  func end() {
    file.end()
  }

  func endDeferringDeliveries() {
    file.endDeferringDeliveries()
  }

  func resumeDeliveries() {
    file.resumeDeliveries()
  }
}

/// A file's transaction with no read failure is the key's transaction as it is (see
/// ``FileStorageKey/beginTransaction(receivingChange:)``): its `readFailure` is `nil` in either's
/// words.
extension DiskFileTransaction: KeyTransaction {}
