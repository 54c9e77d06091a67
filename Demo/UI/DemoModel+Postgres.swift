import Foundation
import SharedDemoSuite
import SharedState
import SharedStatePostgres

extension DemoModel {
  /// Opens the demo's state in a PostgreSQL namespace: the same keys as in a suite, the to-do
  /// list under the key `todos.json`, so that windows on several machines share it.
  convenience init(postgres store: PostgresStore, pid: Int32, now: @escaping () -> UInt64) {
    self.init(
      location: "\(store)",
      state: DemoState(
        counter: Shared(wrappedValue: 0, .postgres("counter", store: store)),
        toggles: SettingToggle.all.map { Shared(wrappedValue: false, .postgres($0.key, store: store)) },
        theme: Shared(wrappedValue: .system, .postgres("settings.theme", store: store)),
        todos: Shared(wrappedValue: [], .postgres("todos.json", store: store)),
        lastChange: Shared(wrappedValue: nil, .postgres("last-change", store: store))
      ),
      pid: pid,
      now: now
    )
  }
}
