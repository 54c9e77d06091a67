import SharedState

/// A `withLock` of a ``PostgresKey``: its row transaction, rolled back at the end unless it
/// committed.
final class PostgresKeyTransaction: KeyTransaction {
  let row: RowTransaction
  private let hub: PostgresConnectionHub

  init(row: RowTransaction, hub: PostgresConnectionHub) {
    self.row = row
    self.hub = hub
  }

  var readFailure: (any Error)? { nil }

  func end() {
    row.rollBack(by: hub.deadline())
  }
}
