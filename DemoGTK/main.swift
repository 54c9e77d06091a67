// shared-demo-gtk: the demo's shared state in a GTK 4 window. Run two on the same --suite (or
// beside `shared-demo ui` in a terminal): each follows the others live.
import CGTK
import Foundation
import SharedDemoSuite
import SharedState
import SharedStateGLib

let usage = """
  usage: shared-demo-gtk --suite DIR

  Shows the counter, the settings and the to-do list of the app-storage suite in DIR (the suite \
  format of `shared-demo ui`), live. Run it twice on one DIR: a change in one window appears in \
  the other at once.
  """

var arguments = CommandLine.arguments.dropFirst()
var suite: String?
while let argument = arguments.popFirst() {
  switch argument {
  case "--suite":
    suite = arguments.popFirst()
  case "-h", "--help":
    print(usage)
    exit(0)
  default:
    FileHandle.standardError.write(Data("shared-demo-gtk: unknown argument \(argument)\n\(usage)\n".utf8))
    exit(64)
  }
}
guard let suite, !suite.isEmpty else {
  FileHandle.standardError.write(Data("shared-demo-gtk: give --suite DIR\n\(usage)\n".utf8))
  exit(64)
}

// The main actor runs inside GLib's loop, and changes from other processes arrive there.
GLibMainActor.install()
SharedChangeDelivery.default = .glibMainContext()
let state = DemoState(suite: AppStorageSuite(directory: URL(fileURLWithPath: suite)))

// NON_UNIQUE: every process opens its own window (a unique application would hand the second
// launch to the first over D-Bus).
let application = gtk_application_new("org.sharedstate.SharedDemoGTK", G_APPLICATION_NON_UNIQUE)!
var windows: [DemoWindow] = []
SignalAction.connect(application, "activate") {
  let window = DemoWindow(application: application, state: state)
  windows.append(window)
  gtk_window_present(shared_demo_window(window.window))
}
let status = g_application_run(shared_demo_application(application), 0, nil)
g_object_unref(application)
exit(status)
