import CGTK
import Foundation
import SharedDemoSuite

/// The widgets of one window, laid out: the counter between − and +, a switch for each setting,
/// the theme as a drop-down, an entry and a list for the to-dos, and a line for what went wrong
/// and one for the status. What they show and what they do is ``DemoWindow``'s.
@MainActor
struct DemoWidgets {
  let window: UnsafeMutablePointer<GtkWidget>
  let counterLabel = gtk_label_new("0")!
  let minusButton = gtk_button_new_with_label("−")!
  let plusButton = gtk_button_new_with_label("+")!
  /// One for each of `SettingToggle.all`, in its order.
  let switches: [UnsafeMutablePointer<GtkWidget>]
  /// The themes, in the order of `Theme.allCases`.
  let themeDropDown: UnsafeMutablePointer<GtkWidget>
  let newTodoEntry = gtk_entry_new()!
  let addButton = gtk_button_new_with_label("Add")!
  /// Where the to-do rows go.
  let todoList = gtk_box_new(GTK_ORIENTATION_VERTICAL, 4)!
  let problemLabel = gtk_label_new(nil)!
  let statusLabel = gtk_label_new(nil)!

  /// Makes the widgets of a new window of `application`, and lays them out.
  init(application: UnsafeMutablePointer<GtkApplication>) {
    window = Self.applicationWindow(application)
    switches = SettingToggle.all.map { _ in gtk_switch_new()! }
    themeDropDown = Self.themeDropDown()

    let root = gtk_box_new(GTK_ORIENTATION_VERTICAL, 10)!
    for setMargin in [gtk_widget_set_margin_top, gtk_widget_set_margin_bottom, gtk_widget_set_margin_start, gtk_widget_set_margin_end] {
      setMargin(root, 16)
    }
    gtk_window_set_child(shared_demo_window(window), root)
    appendCounter(to: root)
    appendSettings(to: root)
    appendTodoList(to: root)
    appendStatus(to: root)
  }

  /// The window, with a title bar of its own: it shows the title (and the counter in it) with
  /// or without a window manager.
  private static func applicationWindow(
    _ application: UnsafeMutablePointer<GtkApplication>
  ) -> UnsafeMutablePointer<GtkWidget> {
    let window = gtk_application_window_new(application)!
    gtk_window_set_default_size(shared_demo_window(window), 420, 560)
    gtk_window_set_titlebar(shared_demo_window(window), gtk_header_bar_new())
    return window
  }

  private static func themeDropDown() -> UnsafeMutablePointer<GtkWidget> {
    let names = Theme.allCases.map { strdup($0.rawValue.capitalized) } + [nil]
    defer { names.forEach { free($0) } }
    return names.map { UnsafePointer($0) }.withUnsafeBufferPointer {
      gtk_drop_down_new_from_strings($0.baseAddress)
    }
  }

  private func appendCounter(to root: UnsafeMutablePointer<GtkWidget>) {
    let counterRow = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 12)!
    gtk_box_append(shared_demo_box(counterRow), Self.heading("Counter"))
    gtk_widget_set_hexpand(counterLabel, 1)
    for widget in [minusButton, counterLabel, plusButton] {
      gtk_box_append(shared_demo_box(counterRow), widget)
    }
    gtk_widget_set_size_request(minusButton, 48, -1)
    gtk_widget_set_size_request(plusButton, 48, -1)
    gtk_box_append(shared_demo_box(root), counterRow)
  }

  private func appendSettings(to root: UnsafeMutablePointer<GtkWidget>) {
    gtk_box_append(shared_demo_box(root), Self.heading("Settings"))
    for (toggle, control) in zip(SettingToggle.all, switches) {
      gtk_box_append(shared_demo_box(root), Self.row(toggle.title, control))
    }
    gtk_box_append(shared_demo_box(root), Self.row("Theme", themeDropDown))
  }

  /// The entry and Add button of a new to-do, above the scrolled list.
  private func appendTodoList(to root: UnsafeMutablePointer<GtkWidget>) {
    gtk_box_append(shared_demo_box(root), Self.heading("To-do"))
    gtk_entry_set_placeholder_text(shared_demo_entry(newTodoEntry), "A new to-do")
    gtk_widget_set_hexpand(newTodoEntry, 1)
    let addRow = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 8)!
    gtk_box_append(shared_demo_box(addRow), newTodoEntry)
    gtk_box_append(shared_demo_box(addRow), addButton)
    gtk_box_append(shared_demo_box(root), addRow)
    let scrolled = gtk_scrolled_window_new()!
    gtk_widget_set_vexpand(scrolled, 1)
    gtk_scrolled_window_set_child(shared_demo_scrolled_window(scrolled), todoList)
    gtk_box_append(shared_demo_box(root), scrolled)
  }

  private func appendStatus(to root: UnsafeMutablePointer<GtkWidget>) {
    for label in [problemLabel, statusLabel] {
      gtk_label_set_xalign(shared_demo_label(label), 0)
      gtk_label_set_wrap(shared_demo_label(label), 1)
      gtk_box_append(shared_demo_box(root), label)
    }
    gtk_widget_add_css_class(statusLabel, "dim-label")
  }

  private static func heading(_ text: String) -> UnsafeMutablePointer<GtkWidget> {
    let label = gtk_label_new(nil)!
    gtk_label_set_markup(shared_demo_label(label), "<b>\(text)</b>")
    gtk_label_set_xalign(shared_demo_label(label), 0)
    return label
  }

  /// A label on the left and a control on the right.
  private static func row(_ title: String, _ control: UnsafeMutablePointer<GtkWidget>) -> UnsafeMutablePointer<GtkWidget> {
    let row = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 12)!
    let label = gtk_label_new(title)!
    gtk_label_set_xalign(shared_demo_label(label), 0)
    gtk_widget_set_hexpand(label, 1)
    gtk_box_append(shared_demo_box(row), label)
    gtk_box_append(shared_demo_box(row), control)
    return row
  }
}
