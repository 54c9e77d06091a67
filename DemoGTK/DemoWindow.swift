import CGTK
import Foundation
import IdentifiedCollections
import Observation
import SharedDemoSuite
import SharedState
import Synchronization

/// One window on a suite's shared state: the counter with − and +, the settings as switches,
/// the theme as a drop-down, the to-do list, and a status line; it follows every change, made
/// here or in another process, and the window's title carries the counter
/// (`SharedState — counter N`) for scripts and tests to read.
///
/// It renders inside `withObservationTracking`: any change of what it showed asks for one more
/// render on the main actor (which runs in GLib's loop through the bridge), so a burst of
/// changes costs one render.
@MainActor
final class DemoWindow {
  private let widgets: DemoWidgets
  private let state: DemoState
  private let pid = getpid()
  /// Prints the buttons' positions and each change's latency on standard output, for the tests
  /// and the benchmark (SHARED_DEMO_GTK_REPORT=1).
  private let reports: Bool

  /// The list as last shown, so that the rows are rebuilt only when it changed.
  private var shownTodos: [Todo]?
  /// The theme as last applied.
  private var shownTheme: Theme?
  /// The changes from other processes since the window opened.
  private var tally: ChangeTally
  /// The summary last printed (SHARED_DEMO_GTK_REPORT=1), printed again only when it changes.
  private var reportedSummary = ""
  /// Whether a render is already asked for.
  private nonisolated let renderPending = Mutex(false)

  init(application: UnsafeMutablePointer<GtkApplication>, state: DemoState) {
    widgets = DemoWidgets(application: application)
    self.state = state
    reports = ProcessInfo.processInfo.environment["SHARED_DEMO_GTK_REPORT"] == "1"
    tally = ChangeTally(pid: getpid(), opening: state.lastChange.wrappedValue)
    connectControls()
    render()
  }

  /// The window, for the application to present.
  var window: UnsafeMutablePointer<GtkWidget> { widgets.window }

  private func connectControls() {
    let state = state
    SignalAction.connect(widgets.plusButton, "clicked") { [weak self] in
      self?.change { state.counter.withLock { $0 += 1 } }
    }
    SignalAction.connect(widgets.minusButton, "clicked") { [weak self] in
      self?.change { state.counter.withLock { $0 -= 1 } }
    }
    for (control, shared) in zip(widgets.switches, state.toggles) {
      SignalAction.connect(control, "notify::active") { [weak self] in
        let isOn = gtk_switch_get_active(shared_demo_switch(control)) != 0
        // Rendering a change from elsewhere sets the switch too: write only what differs.
        guard isOn != shared.wrappedValue else { return }
        self?.change { shared.withLock { $0 = isOn } }
      }
    }
    let themeDropDown = widgets.themeDropDown
    SignalAction.connect(themeDropDown, "notify::selected") { [weak self] in
      let index = Int(gtk_drop_down_get_selected(shared_demo_drop_down(themeDropDown)))
      guard Theme.allCases.indices.contains(index), Theme.allCases[index] != state.theme.wrappedValue else { return }
      self?.change { state.theme.withLock { $0 = Theme.allCases[index] } }
    }
    SignalAction.connect(widgets.newTodoEntry, "activate") { [weak self] in self?.addTodo() }
    SignalAction.connect(widgets.addButton, "clicked") { [weak self] in self?.addTodo() }
    if reports {
      SignalAction.connect(window, "map") { [weak self] in
        Task { @MainActor in await self?.reportLayout() }
      }
    }
  }

  // MARK: Changes made here

  /// Makes a change of the shared state, then tells the other windows who made it and when.
  private func change(_ body: () -> Void) {
    body()
    tally.made(state.lastChange.recordChange(by: pid, now: Self.unixNanoseconds))
  }

  private func addTodo() {
    let editable = shared_demo_editable(widgets.newTodoEntry)
    let title = String(cString: gtk_editable_get_text(editable)).trimmingCharacters(in: .whitespaces)
    guard !title.isEmpty else { return }
    gtk_editable_set_text(editable, "")
    let todo = Todo(id: UUID(), title: title)
    change { state.todos.withLock { _ = $0.append(todo) } }
  }

  // MARK: Rendering

  /// Asks for one render on the main actor, unless one is already asked for. Called by
  /// Observation from whichever thread delivers a change.
  private nonisolated func renderSoon() {
    let isFirst = renderPending.withLock { pending in
      defer { pending = true }
      return !pending
    }
    guard isFirst else { return }
    Task { @MainActor [weak self] in self?.render() }
  }

  /// Shows the state as it is now, and asks to be called again when any of it changes.
  ///
  /// Observation installs its tracking only once the read is over: a change that lands during
  /// the read would go unnoticed, so the state is read once more afterwards, and a difference
  /// asks for another render.
  private func render() {
    renderPending.withLock { $0 = false }
    let state = state
    let shown = withObservationTracking {
      ShownState(state)
    } onChange: { [weak self] in
      self?.renderSoon()
    }
    show(shown)
    if ShownState(state) != shown {
      renderSoon()
    }
  }

  private func show(_ shown: ShownState) {
    gtk_label_set_markup(shared_demo_label(widgets.counterLabel), "<span size='xx-large' weight='bold'>\(shown.counter)</span>")
    gtk_window_set_title(shared_demo_window(window), "SharedState — counter \(shown.counter)")

    for (control, isOn) in zip(widgets.switches, shown.toggles) {
      if (gtk_switch_get_active(shared_demo_switch(control)) != 0) != isOn {
        gtk_switch_set_active(shared_demo_switch(control), isOn ? 1 : 0)
      }
    }
    let themeIndex = UInt32(Theme.allCases.firstIndex(of: shown.theme)!)
    if gtk_drop_down_get_selected(shared_demo_drop_down(widgets.themeDropDown)) != themeIndex {
      gtk_drop_down_set_selected(shared_demo_drop_down(widgets.themeDropDown), themeIndex)
    }
    // Setting GTK's preference reloads the theme, even to the same value: only on a change.
    if shown.theme != shownTheme {
      shared_demo_prefer_dark_theme(shown.theme == .dark ? 1 : 0)
      shownTheme = shown.theme
    }

    if shown.todos != shownTodos {
      showTodos(shown.todos)
      shownTodos = shown.todos
    }

    receive(shown.lastChange, at: Self.unixNanoseconds())
    if let problem = shown.problem {
      let escaped = g_markup_escape_text(problem, -1)!
      defer { g_free(escaped) }
      gtk_label_set_markup(shared_demo_label(widgets.problemLabel), "<span foreground='#c01c28'>\(String(cString: escaped))</span>")
      gtk_widget_set_visible(widgets.problemLabel, 1)
    } else {
      gtk_widget_set_visible(widgets.problemLabel, 0)
    }
    let latency = tally.lastLatency.map { String(format: "%.2f ms", Double($0) / 1_000_000) } ?? "—"
    if reports { reportSummary() }
    gtk_label_set_text(
      shared_demo_label(widgets.statusLabel),
      "pid \(pid) · \(tally.changesFromOthers) \(tally.changesFromOthers == 1 ? "change" : "changes") from others · "
        + "latency of the last: \(latency)"
    )
  }

  private func showTodos(_ todos: [Todo]) {
    while let child = gtk_widget_get_first_child(widgets.todoList) {
      gtk_box_remove(shared_demo_box(widgets.todoList), child)
    }
    let shared = state.todos
    for todo in todos {
      let id = todo.id
      let done = gtk_check_button_new()!
      gtk_check_button_set_active(shared_demo_check_button(done), todo.isDone ? 1 : 0)
      let title = gtk_entry_new()!
      gtk_editable_set_text(shared_demo_editable(title), todo.title)
      gtk_widget_set_hexpand(title, 1)
      if todo.isDone { gtk_widget_set_opacity(title, 0.5) }
      let delete = gtk_button_new_with_label("✕")!
      let row = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6)!
      for widget in [done, title, delete] {
        gtk_box_append(shared_demo_box(row), widget)
      }
      gtk_box_append(shared_demo_box(widgets.todoList), row)

      SignalAction.connect(done, "toggled") { [weak self] in
        let isDone = gtk_check_button_get_active(shared_demo_check_button(done)) != 0
        self?.change { shared.withLock { $0[id: id]?.isDone = isDone } }
      }
      SignalAction.connect(title, "activate") { [weak self] in
        let text = String(cString: gtk_editable_get_text(shared_demo_editable(title)))
          .trimmingCharacters(in: .whitespaces)
        guard !text.isEmpty else { return }
        self?.change { shared.withLock { $0[id: id]?.title = text } }
      }
      SignalAction.connect(delete, "clicked") { [weak self] in
        self?.change { shared.withLock { _ = $0.remove(id: id) } }
      }
    }
    if todos.isEmpty {
      let empty = gtk_label_new("Nothing to do.")!
      gtk_label_set_xalign(shared_demo_label(empty), 0)
      gtk_widget_add_css_class(empty, "dim-label")
      gtk_box_append(shared_demo_box(widgets.todoList), empty)
    }
  }

  /// Notes a value of `last-change` seen at `receivedAt` (see ``ChangeTally/receive(_:at:)``),
  /// and reports the latency of a change from another process.
  private func receive(_ change: LastChange?, at receivedAt: UInt64) {
    guard let latency = tally.receive(change, at: receivedAt), reports, let change else { return }
    Self.report("latency sequence=\(change.sequence) ns=\(latency)")
  }

  // MARK: Reports

  /// Prints where the − and + buttons are, in the X window's coordinates, once laid out.
  private func reportLayout() async {
    while gtk_widget_get_width(widgets.plusButton) == 0 {
      try? await Task.sleep(for: .milliseconds(20))
    }
    Self.report("layout plus=\(center(of: widgets.plusButton)) minus=\(center(of: widgets.minusButton))")
  }

  /// Prints what the window shows, read back from its widgets: the counter's label, the number
  /// of to-do rows, the key of the problem shown (or `none`), and the title last.
  private func reportSummary() {
    let label = String(cString: gtk_label_get_text(shared_demo_label(widgets.counterLabel)))
    let title = String(cString: gtk_window_get_title(shared_demo_window(window)))
    let problem =
      gtk_widget_get_visible(widgets.problemLabel) != 0
      ? String(cString: gtk_label_get_text(shared_demo_label(widgets.problemLabel))).prefix { $0 != ":" } : "none"
    let summary = "shown counter=\(label) todos=\(shownTodos?.count ?? 0) problem=\(problem) title=\(title)"
    guard summary != reportedSummary else { return }
    reportedSummary = summary
    Self.report(summary)
  }

  private func center(of widget: UnsafeMutablePointer<GtkWidget>) -> String {
    var x = 0.0
    var y = 0.0
    gtk_widget_translate_coordinates(
      widget, window, Double(gtk_widget_get_width(widget)) / 2, Double(gtk_widget_get_height(widget)) / 2, &x, &y
    )
    var surfaceX = 0.0
    var surfaceY = 0.0
    gtk_native_get_surface_transform(shared_demo_native(window), &surfaceX, &surfaceY)
    return "\(Int(x + surfaceX)),\(Int(y + surfaceY))"
  }

  private static func report(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
  }

  // MARK: Helpers

  private static func unixNanoseconds() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_REALTIME, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
  }
}
