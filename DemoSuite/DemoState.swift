import Foundation
import IdentifiedCollections
import SharedState

/// The state every window of the demo shares, under the keys both demos use: the counter, the
/// settings, the theme, the to-do list and `last-change`.
package struct DemoState: Sendable {
  /// Under `counter`.
  package let counter: Shared<Int>
  /// One for each of ``SettingToggle/all``, under its key.
  package let toggles: [Shared<Bool>]
  /// Under `settings.theme`.
  package let theme: Shared<Theme>
  /// Under `todos.json`.
  package let todos: Shared<IdentifiedArrayOf<Todo>>
  /// Under `last-change`.
  package let lastChange: Shared<LastChange?>

  /// The state from its parts, for a store of another kind (the terminal demo's PostgreSQL
  /// namespace).
  package init(
    counter: Shared<Int>,
    toggles: [Shared<Bool>],
    theme: Shared<Theme>,
    todos: Shared<IdentifiedArrayOf<Todo>>,
    lastChange: Shared<LastChange?>
  ) {
    self.counter = counter
    self.toggles = toggles
    self.theme = theme
    self.todos = todos
    self.lastChange = lastChange
  }

  /// The state of `suite`: app-storage keys, and the to-do list in the file `todos.json` of the
  /// suite's directory (in the `defaultFileStorage` dependency).
  package init(suite: AppStorageSuite) {
    self.init(
      counter: Shared(wrappedValue: 0, .appStorage("counter", store: suite)),
      toggles: SettingToggle.all.map { Shared(wrappedValue: false, .appStorage($0.key, store: suite)) },
      theme: Shared(wrappedValue: .system, .appStorage("settings.theme", store: suite)),
      todos: Shared(wrappedValue: [], .fileStorage(suite.directory.appendingPathComponent("todos.json"))),
      lastChange: Shared(wrappedValue: nil, .appStorage("last-change", store: suite))
    )
  }

  /// The first load or save error of the state, named by its key, or `nil`.
  package var problem: String? {
    let errors: [(String, (any Error)?)] =
      [
        ("counter", counter.loadError ?? counter.saveError),
        ("settings.theme", theme.loadError ?? theme.saveError),
        ("todos.json", todos.loadError ?? todos.saveError),
      ] + zip(SettingToggle.all, toggles).map { ($0.key, $1.loadError ?? $1.saveError) }
    return errors.first { $0.1 != nil }.map { "\($0.0): \($0.1!)" }
  }
}
