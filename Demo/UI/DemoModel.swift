import Foundation
import IdentifiedCollections
import SharedState

/// One window's state and behaviour, without a terminal: maps key presses to `withLock`
/// changes of the state every window shares, keeps what is this window's own (the selection,
/// the text being typed, the count of changes from other processes), and describes it all as a
/// ``DemoSnapshot``.
final class DemoModel {
  /// Whether the window goes on after a key press.
  enum Outcome: Equatable {
    case proceed, quit
  }

  /// Where the state lives, for the window's title: the suite's directory, or the PostgreSQL
  /// namespace and server.
  let location: String
  let counter: Shared<Int>
  let toggles: [Shared<Bool>]
  let theme: Shared<Theme>
  let todos: Shared<IdentifiedArrayOf<Todo>>
  let lastChange: Shared<LastChange?>

  private let pid: Int32
  private let now: () -> UInt64
  private(set) var mode = DemoMode.browsing
  private var selectedID: UUID?
  /// Where the selection was when last seen, for when another window deletes the selected to-do.
  private var lastSelectionIndex = 0
  /// The suite's change count (``LastChange/sequence``) when this window opened, and the
  /// highest seen since.
  private let firstSequence: Int
  private var latestSequence: Int
  private var changesMade = 0
  private var lastLatency: UInt64?

  /// Opens the shared state of `suite`: app-storage keys, and the to-do list in the file
  /// `todos.json` of the suite's directory (in the `defaultFileStorage` dependency).
  ///
  /// - Parameters:
  ///   - pid: This process's id, written with each change and shown.
  ///   - now: The time in nanoseconds since the Unix epoch.
  convenience init(suite: AppStorageSuite, pid: Int32, now: @escaping () -> UInt64) {
    self.init(
      location: suite.directory.path,
      counter: Shared(wrappedValue: 0, .appStorage("counter", store: suite)),
      toggles: SettingToggle.all.map { Shared(wrappedValue: false, .appStorage($0.key, store: suite)) },
      theme: Shared(wrappedValue: .system, .appStorage("settings.theme", store: suite)),
      todos: Shared(wrappedValue: [], .fileStorage(suite.directory.appendingPathComponent("todos.json"))),
      lastChange: Shared(wrappedValue: nil, .appStorage("last-change", store: suite)),
      pid: pid,
      now: now
    )
  }

  /// Opens the state of the demo's windows from its parts (see `DemoModel+Postgres.swift` for
  /// the same state in PostgreSQL).
  init(
    location: String,
    counter: Shared<Int>,
    toggles: [Shared<Bool>],
    theme: Shared<Theme>,
    todos: Shared<IdentifiedArrayOf<Todo>>,
    lastChange: Shared<LastChange?>,
    pid: Int32,
    now: @escaping () -> UInt64
  ) {
    self.location = location
    self.counter = counter
    self.toggles = toggles
    self.theme = theme
    self.todos = todos
    self.lastChange = lastChange
    self.pid = pid
    self.now = now
    // Changes made before this window opened are not changes that arrived while it watched.
    firstSequence = lastChange.wrappedValue?.sequence ?? 0
    latestSequence = firstSequence
  }

  // MARK: Key presses

  /// Does what `key` means in the current mode.
  func handle(_ key: KeyPress) -> Outcome {
    if key == .interrupt { return .quit }
    switch mode {
    case .browsing:
      return command(key)
    case let .adding(text):
      edit(text, key) { mode = .adding(text: $0) } commit: { title in
        let todo = Todo(id: UUID(), title: title)
        change { todos.withLock { _ = $0.append(todo) } }
        selectedID = todo.id
      }
    case let .editing(id, text):
      edit(text, key) { mode = .editing(id: id, text: $0) } commit: { title in
        change { todos.withLock { $0[id: id]?.title = title } }
      }
    }
    return .proceed
  }

  private func command(_ key: KeyPress) -> Outcome {
    switch key {
    case .character("q"):
      return .quit
    case .character("+"), .character("="):
      change { counter.withLock { $0 += 1 } }
    case .character("-"):
      change { counter.withLock { $0 -= 1 } }
    case let .character(character) where SettingToggle.all.contains { $0.shortcut == character }:
      let index = SettingToggle.all.firstIndex { $0.shortcut == character }!
      change { toggles[index].withLock { $0.toggle() } }
    case .character("t"):
      change { theme.withLock { $0 = $0.next } }
    case .character("a"):
      mode = .adding(text: "")
    case .character("e"), .enter:
      if let todo = selectedTodo {
        mode = .editing(id: todo.id, text: todo.title)
      }
    case .character(" "), .character("x"):
      if let id = selectedTodo?.id {
        change { todos.withLock { $0[id: id]?.isDone.toggle() } }
      }
    case .character("d"):
      deleteSelected()
    case .up, .character("k"):
      moveSelection(by: -1)
    case .down, .character("j"):
      moveSelection(by: 1)
    default:
      break
    }
    return .proceed
  }

  /// Line editing: characters append, Backspace erases, Enter commits a non-empty title, Esc
  /// cancels.
  private func edit(
    _ text: String,
    _ key: KeyPress,
    update: (String) -> Void,
    commit: (String) -> Void
  ) {
    switch key {
    case let .character(character):
      update(text + String(character))
    case .backspace:
      update(String(text.dropLast()))
    case .escape:
      mode = .browsing
    case .enter:
      mode = .browsing
      let title = text.trimmingCharacters(in: .whitespaces)
      if !title.isEmpty { commit(title) }
    default:
      break
    }
  }

  private func deleteSelected() {
    let list = todos.wrappedValue
    guard let index = selectionIndex(in: list) else { return }
    let id = list[index].id
    // The next to-do (or the one before, at the end) becomes the selected one.
    let neighbour = index + 1 < list.count ? list[index + 1].id : (index > 0 ? list[index - 1].id : nil)
    change { todos.withLock { _ = $0.remove(id: id) } }
    selectedID = neighbour
  }

  private func moveSelection(by offset: Int) {
    let list = todos.wrappedValue
    guard !list.isEmpty else { return }
    let index = selectionIndex(in: list) ?? 0
    let target = min(max(index + offset, 0), list.count - 1)
    selectedID = list[target].id
    lastSelectionIndex = target
  }

  /// Makes a change of the shared state, then tells the other windows who made it and when.
  private func change(_ body: () -> Void) {
    body()
    changesMade += 1
    let time = now()
    let sequence = lastChange.withLock { last in
      last = LastChange(pid: pid, sequence: (last?.sequence ?? 0) + 1, unixNanoseconds: time)
      return last!.sequence
    }
    latestSequence = max(latestSequence, sequence)
  }

  // MARK: Changes from elsewhere

  /// Notes a value of `last-change` that arrived at `receivedAt` (nanoseconds since the Unix
  /// epoch): it advances the suite's change count, and when another process wrote it, its
  /// latency is how long it took to arrive.
  func receive(_ change: LastChange?, at receivedAt: UInt64) {
    guard let change, change.sequence > latestSequence else { return }
    latestSequence = change.sequence
    if change.pid != pid {
      lastLatency = receivedAt >= change.unixNanoseconds ? receivedAt - change.unixNanoseconds : 0
    }
  }

  /// The changes other processes made since this window opened: every change advances the
  /// suite's count by one, and this window knows how many were its own. Exact even when
  /// several changes arrive as one (inotify events coalesce) or this window's own write hides
  /// another's.
  private var changesFromOthers: Int {
    max(latestSequence - firstSequence - changesMade, 0)
  }

  // MARK: What to show

  private var selectedTodo: Todo? {
    let list = todos.wrappedValue
    return selectionIndex(in: list).map { list[$0] }
  }

  /// The selected to-do's position: where the selected id is, or, when another window removed
  /// it, the position it had.
  private func selectionIndex(in list: IdentifiedArrayOf<Todo>) -> Int? {
    guard !list.isEmpty else { return nil }
    if let selectedID, let index = list.index(id: selectedID) {
      lastSelectionIndex = index
      return index
    }
    let index = min(lastSelectionIndex, list.count - 1)
    selectedID = list[index].id
    lastSelectionIndex = index
    return index
  }

  /// What the window shows now.
  func snapshot() -> DemoSnapshot {
    let list = todos.wrappedValue
    let errors: [(String, (any Error)?)] = [
      ("counter", counter.loadError ?? counter.saveError),
      ("settings.theme", theme.loadError ?? theme.saveError),
      ("todos.json", todos.loadError ?? todos.saveError),
    ] + zip(SettingToggle.all, toggles).map { ($0.key, $1.loadError ?? $1.saveError) }
    let problem = errors.first { $0.1 != nil }.map { "\($0.0): \($0.1!)" }
    return DemoSnapshot(
      suite: location,
      counter: counter.wrappedValue,
      toggles: zip(SettingToggle.all, toggles).map {
        DemoSnapshot.ToggleRow(title: $0.title, shortcut: $0.shortcut, isOn: $1.wrappedValue)
      },
      theme: theme.wrappedValue,
      todos: Array(list),
      selection: selectionIndex(in: list),
      mode: mode,
      pid: pid,
      changesFromOthers: changesFromOthers,
      lastLatencyNanoseconds: lastLatency,
      problem: problem
    )
  }
}
