/// An exclusive, cross-process read-modify-write of one stored file, begun by
/// ``StoredFile/beginTransaction()``: begin (locks taken, the handle brought up to date), the
/// caller's decision, then ``commit(_:)`` or nothing, then ``end()``.
///
/// Used alike by `withLock` and by a plain save; nothing in it re-enters.
protocol FileTransaction: AnyObject {
  /// What the file holds, when it changed since the handle last read or wrote it; the error when
  /// it could not be read or the locks could not be taken; `nil` when it did not change.
  var change: Result<FileState, any Error>? { get }

  /// Why the file's current contents could not be established (the locks could not be taken,
  /// the entry at the target name could not be looked up or read, or it is longer than the
  /// handle reads), or `nil`. A transaction with a read failure commits nothing: ``commit(_:)``
  /// throws this error, so that no write replaces a value its writer could not see.
  var readFailure: (any Error)? { get }

  /// Replaces the file's contents atomically (`.missing` removes it). Everything that can fail
  /// is checked before the file is replaced, so that a commit that throws changed nothing, with
  /// one exception: a durable write whose directory could not be flushed after the replacement
  /// throws ``DirectoryNotFlushed``, and the new contents are in place.
  ///
  /// - Throws: The ``readFailure``, a ``RefusedEntry``, an ``OwnershipNotCarried``,
  ///   ``DirectoryNotFlushed``, or the system's error.
  func commit(_ state: FileState) throws

  /// Releases the locks. Later calls do nothing.
  func end()

  /// Releases the locks, leaving the handle's deliveries to this transaction until
  /// ``resumeDeliveries()`` (see ``KeyTransaction/endDeferringDeliveries()``).
  func endDeferringDeliveries()

  /// Ends what ``endDeferringDeliveries()`` left.
  func resumeDeliveries()
}

extension FileTransaction {
  /// A transaction whose handle leaves no deliveries to it: ``end()``.
  func endDeferringDeliveries() { end() }

  /// Nothing to resume.
  func resumeDeliveries() {}
}
