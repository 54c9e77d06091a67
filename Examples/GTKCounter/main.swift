// A window with a label that follows a shared counter, and a + button: the complete program of
// the article "Embedding in a GTK application" (SharedStateGLib's DocC catalog), kept identical
// to it. Run it twice on one directory (`GTKCounterExample DIR`) and click + in either window.
import CGTK
import Foundation
import SharedState
import SharedStateGLib

GLibMainActor.install()
SharedChangeDelivery.default = .glibMainContext()

let directory = CommandLine.arguments.dropFirst().first ?? "/tmp/gtk-counter-example"
let counter = Shared(
  wrappedValue: 0,
  .appStorage("counter", store: AppStorageSuite(directory: URL(fileURLWithPath: directory)))
)

/// The label, once the application has started (GTK makes no widget before that).
var label: UnsafeMutablePointer<GtkWidget>?

@MainActor func show(_ value: Int) {
  if let label { gtk_label_set_text(OpaquePointer(label), "Counter: \(value)") }
}

/// A GTK signal handler is a C function: no captures. It receives the emitting object first and
/// its user data last, and runs on the main thread, inside the loop.
typealias Handler = @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void

func connect(_ instance: UnsafeMutableRawPointer, _ signal: String, _ handler: Handler) {
  // g_signal_connect is a macro; its function, g_signal_connect_data, imports.
  g_signal_connect_data(
    instance, signal, unsafeBitCast(handler, to: GCallback.self), nil, nil, GConnectFlags(0)
  )
}

let application = gtk_application_new(
  "org.sharedstate.GTKCounterExample", G_APPLICATION_NON_UNIQUE
)!
connect(application, "activate") { application, _ in
  MainActor.assumeIsolated {
    let window = gtk_application_window_new(
      OpaquePointer(application).map { UnsafeMutablePointer($0) }
    )!
    let box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 12)!
    label = gtk_label_new(nil)
    show(counter.wrappedValue)
    let plus = gtk_button_new_with_label("+")!
    connect(plus, "clicked") { _, _ in
      MainActor.assumeIsolated { counter.withLock { $0 += 1 } }
    }
    gtk_box_append(UnsafeMutablePointer(OpaquePointer(box)), label!)
    gtk_box_append(UnsafeMutablePointer(OpaquePointer(box)), plus)
    gtk_window_set_child(UnsafeMutablePointer(OpaquePointer(window)), box)
    gtk_window_present(UnsafeMutablePointer(OpaquePointer(window)))
  }
}

// Every value, from this process or another, on the main actor — inside GLib's loop.
Task { @MainActor in
  for await value in counter.values {
    show(value)
  }
}

exit(g_application_run(UnsafeMutablePointer<GApplication>(OpaquePointer(application)), 0, nil))
