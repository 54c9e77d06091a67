import Foundation
import IdentifiedCollections
import SharedDemoSuite
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
  private let state: DemoState
  // The parts of the shared state, by name.
  var counter: Shared<Int> { state.counter }
  var toggles: [Shared<Bool>] { state.toggles }
  var theme: Shared<Theme> { state.theme }
  var todos: Shared<IdentifiedArrayOf<Todo>> { state.todos }
  var lastChange: Shared<LastChange?> { state.lastChange }

  private let pid: Int32
  private let now: () -> UInt64
  private(set) var mode = DemoMode.browsing
  private var selectedID: UUID?
  /// Where the selection was when last seen, for when another window deletes the selected to-do.
  private var lastSelectionIndex = 0
  private var tally: ChangeTally

  /// Opens the shared state of `suite` (see ``DemoState/init(suite:)``).
  ///
  /// - Parameters:
  ///   - pid: This process's id, written with each change and shown.
  ///   - now: The time in nanoseconds since the Unix epoch.
  convenience init(suite: AppStorageSuite, pid: Int32, now: @escaping () -> UInt64) {
    self.init(location: suite.directory.path, state: DemoState(suite: suite), pid: pid, now: now)
  }

  /// Opens the state of the demo's windows (see `DemoModel+Postgres.swift` for the same state
  /// in PostgreSQL).
  init(location: String, state: DemoState, pid: Int32, now: @escaping () -> UInt64) {
    self.location = location
    self.state = state
    self.pid = pid
    self.now = now
    tally = ChangeTally(pid: pid, opening: state.lastChange.wrappedValue)
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
    tally.made(lastChange.recordChange(by: pid, now: now))
  }

  // MARK: Changes from elsewhere

  /// Notes a value of `last-change` that arrived at `receivedAt` (see
  /// ``ChangeTally/receive(_:at:)``).
  func receive(_ change: LastChange?, at receivedAt: UInt64) {
    tally.receive(change, at: receivedAt)
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
      changesFromOthers: tally.changesFromOthers,
      lastLatencyNanoseconds: tally.lastLatency,
      problem: state.problem
    )
  }
}
