import Foundation
import IdentifiedCollections
import SharedState

/// The state every window of a suite shares, under the terminal demo's keys: the counter, the
/// settings and the theme in app storage, the to-do list in the file `todos.json` of the suite's
/// directory, and `last-change`.
struct DemoState: Sendable {
  let directory: URL
  let counter: Shared<Int>
  let toggles: [Shared<Bool>]
  let theme: Shared<Theme>
  let todos: Shared<IdentifiedArrayOf<Todo>>
  let lastChange: Shared<LastChange?>

  /// Opens the suite in `directory` (created when first written).
  init(directory: URL) {
    let suite = AppStorageSuite(directory: directory)
    self.directory = directory
    counter = Shared(wrappedValue: 0, .appStorage("counter", store: suite))
    toggles = SettingToggle.all.map { Shared(wrappedValue: false, .appStorage($0.key, store: suite)) }
    theme = Shared(wrappedValue: .system, .appStorage("settings.theme", store: suite))
    todos = Shared(wrappedValue: [], .fileStorage(directory.appendingPathComponent("todos.json")))
    lastChange = Shared(wrappedValue: nil, .appStorage("last-change", store: suite))
  }

  /// The first load or save error of the state, named by its key, or `nil`.
  var problem: String? {
    let errors: [(String, (any Error)?)] =
      [
        ("counter", counter.loadError ?? counter.saveError),
        ("settings.theme", theme.loadError ?? theme.saveError),
        ("todos.json", todos.loadError ?? todos.saveError),
      ] + zip(SettingToggle.all, toggles).map { ($0.key, $1.loadError ?? $1.saveError) }
    return errors.first { $0.1 != nil }.map { "\($0.0): \($0.1!)" }
  }
}
