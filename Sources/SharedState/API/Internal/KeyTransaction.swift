/// One cross-process read-modify-write of a key's stored value, as `withLock` uses it: begun by
/// ``CrossProcessKey/beginTransaction(receivingChange:)`` (locks taken, the value brought up to
/// date), then the mutation, then ``CrossProcessKey/commit(_:through:)`` of the new value (or
/// nothing), then ``end()``.
///
/// Not generic, and class-bound: a reference's code runs unspecialised, and a transaction generic
/// over the value would cost a run-time metadata look-up and an allocation or more per write.
/// Used on one thread, from beginning to end.
package protocol KeyTransaction: AnyObject {
  /// Why the current value could not be established (the stored bytes could not be read, the
  /// locks or the row could not be taken), or `nil`. A transaction with a read failure must write
  /// nothing: `withLock` does not run its body on a value it could not bring up to date, and
  /// reports this error as the save error. Undecodable contents are not a read failure: they
  /// arrive as the change and a deliberate write may replace them.
  var readFailure: (any Error)? { get }

  /// Releases the locks. Later calls do nothing.
  func end()

  /// Releases the locks, for a caller that still holds a lock of its own over what the
  /// transaction read (a reference, over its value): until ``resumeDeliveries()``, changes made
  /// elsewhere are still left to this transaction's caller rather than delivered to it, which
  /// would wait for that lock. Later calls, and calls after ``end()``, do nothing.
  func endDeferringDeliveries()

  /// Once the caller's own lock is released: delivers the changes left to the transaction since
  /// ``endDeferringDeliveries()``, on this thread (before the caller's observers hear of its own
  /// change).
  func resumeDeliveries()
}

extension KeyTransaction {
  /// A transaction whose deliveries are never left to it: ``end()``.
  package func endDeferringDeliveries() { end() }

  /// Nothing to resume.
  package func resumeDeliveries() {}
}

/// The error of a commit that stored its value and then failed to finish: the value is what
/// every process reads from here on, so the reference takes it, and `saveError` is its save
/// error. A durable write whose directory could not be flushed to the disk is one.
package struct StoredWithSaveError: Error {
  package let saveError: any Error

  package init(_ saveError: any Error) {
    self.saveError = saveError
  }
}

/// The error for a commit through a transaction that another kind of key began.
package struct TransactionOfAnotherKey: Error, CustomStringConvertible {
  package init() {}
  package var description: String { "the transaction was begun by another kind of key" }
}

/// A transaction that could not begin: it holds nothing, and its keys commit nothing through it.
package final class FailedKeyTransaction: KeyTransaction {
  package let readFailure: (any Error)?

  package init(_ failure: any Error) {
    readFailure = failure
  }

  package func end() {}
}
