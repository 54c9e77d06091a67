import Foundation
import XCTest

/// `shared-demo-gtk` end to end: two windows in two processes on one suite, under Xvfb (a
/// display of the test's own), driven with xdotool and photographed with xwd and ImageMagick.
final class GTKDemoTests: XCTestCase {
  /// The display tools the test drives the windows with, or `nil` when one is missing.
  private struct DisplayTools {
    let xvfb, xdotool, xwd, convert: String

    init?() {
      guard let xvfb = RunningProgram.find("Xvfb"), let xdotool = RunningProgram.find("xdotool"),
        let xwd = RunningProgram.find("xwd"), let convert = RunningProgram.find("convert")
      else { return nil }
      (self.xvfb, self.xdotool, self.xwd, self.convert) = (xvfb, xdotool, xwd, convert)
    }
  }

  private var tools: DisplayTools!
  private var display = ""
  private var started: [RunningProgram] = []

  override func setUpWithError() throws {
    guard let tools = DisplayTools() else {
      throw XCTSkip(
        "The GTK demo's test needs a virtual display and its tools (Xvfb, xdotool, xwd, convert): "
          + "apt-get install -y xvfb xdotool x11-apps imagemagick (scripts/test.sh installs them)."
      )
    }
    self.tools = tools
    // A free display, chosen by the server itself and written on its standard output.
    let server = try RunningProgram(
      tools.xvfb, ["-displayfd", "1", "-screen", "0", "1000x700x24", "-nolisten", "tcp"]
    )
    started.append(server)
    let number = try server.line(startingWith: "", within: 20)
    XCTAssertNotNil(Int(number), "Xvfb's display number: \(number)")
    display = ":\(number)"
  }

  override func tearDown() {
    started.reversed().forEach { $0.terminate() }
    started = []
  }

  private var displayEnvironment: [String: String] {
    [
      "DISPLAY": display, "GDK_BACKEND": "x11", "GSK_RENDERER": "cairo", "NO_AT_BRIDGE": "1",
      // No session bus here: GApplication would try to start one.
      "DBUS_SESSION_BUS_ADDRESS": "disabled:",
    ]
  }

  /// Opens a window on `suite` and waits until it is laid out; returns it, its X window id and
  /// the centre of its + button.
  private func openWindow(suite: String) throws -> (program: RunningProgram, window: String, plus: String) {
    var environment = displayEnvironment
    environment["SHARED_DEMO_GTK_REPORT"] = "1"
    let program = try RunningProgram(
      RunningProgram.built("shared-demo-gtk"), ["--suite", suite], environment: environment
    )
    started.append(program)
    // The first render comes before the window is on screen and laid out.
    try program.line(startingWith: "shown counter=0 ", within: 30)
    let layout = ProbeLine(try program.line(startingWith: "layout ", within: 30))
    let plus = try XCTUnwrap(layout["plus"]).replacingOccurrences(of: ",", with: " ")
    let search = try xdotool(["search", "--pid", "\(program.processIdentifier)", "--name", "^SharedState"])
    let window = try XCTUnwrap(search.last, "the window of pid \(program.processIdentifier)")
    return (program, window, plus)
  }

  @discardableResult
  private func xdotool(_ arguments: [String]) throws -> [String] {
    let result = try RunningProgram.run(tools.xdotool, arguments, environment: displayEnvironment)
    XCTAssertEqual(result.status, 0, "xdotool \(arguments.joined(separator: " ")): \(result.lines)")
    return result.lines
  }

  private func title(of window: String) throws -> String {
    try xdotool(["getwindowname", window]).first ?? ""
  }

  func testTwoWindowsInTwoProcessesFollowEachOther() throws {
    let directory = try TemporaryDirectory()
    let suite = directory.path("suite")
    let left = try openWindow(suite: suite)
    let right = try openWindow(suite: suite)
    // The windows end before the directory is removed (`tearDown` comes after): a window still
    // running when its suite disappears reads its keys again, which makes the suite again.
    defer { withExtendedLifetime(directory) { [right, left].forEach { $0.program.terminate() } } }
    try xdotool(["windowmove", left.window, "0", "0"])
    try xdotool(["windowmove", right.window, "460", "0"])

    // A click on + in the left window: the right one's label and title follow within 1 s.
    let clicked = Date()
    try xdotool(["mousemove", "--window", left.window] + left.plus.split(separator: " ").map(String.init) + ["click", "1"])
    let shown = try right.program.line(startingWith: "shown counter=1 ", within: 1)
    XCTAssertLessThan(Date().timeIntervalSince(clicked), 1)
    XCTAssertTrue(shown.hasSuffix("title=SharedState — counter 1"), shown)
    XCTAssertEqual(try title(of: right.window), "SharedState — counter 1")
    XCTAssertEqual(try title(of: left.window), "SharedState — counter 1")

    // A write from a shell reaches both.
    let demo = RunningProgram.built("shared-demo")
    let set = try RunningProgram.run(demo, ["set", "--suite", suite, "--key", "counter", "41"])
    XCTAssertEqual(set.status, 0, "\(set.lines)")
    for window in [left, right] {
      try window.program.line(startingWith: "shown counter=41 ", within: 5)
      XCTAssertEqual(try title(of: window.window), "SharedState — counter 41")
    }

    // Something to look at: a to-do list, a setting on.
    let todos = """
      [{"id":"6F1C8B0E-1D2A-4B8E-9C3D-0A1B2C3D4E5F","title":"Water the plants","isDone":true},\
      {"id":"7A2D9C1F-2E3B-4C9F-8D4E-1B2C3D4E5F60","title":"Write the release notes","isDone":false}]
      """
    XCTAssertEqual(try RunningProgram.run(demo, ["set", "--file", directory.path("suite/todos.json"), todos]).status, 0)
    XCTAssertEqual(try RunningProgram.run(demo, ["set", "--suite", suite, "--key", "settings.sound", "true"]).status, 0)
    for window in [left, right] {
      try window.program.line(startingWith: "shown counter=41 todos=2 ", within: 5)
    }

    // A screenshot of both windows, checked not blank in either.
    let screenshot = ProcessInfo.processInfo.environment["SHARED_DEMO_GTK_SCREENSHOT"]
      ?? FileManager.default.temporaryDirectory.appendingPathComponent("shared-demo-gtk.png").path
    let capture = try RunningProgram.run(
      "/bin/sh", ["-c", "\"$0\" -root -silent | \"$1\" xwd:- png:\"$2\"", tools.xwd, tools.convert, screenshot],
      environment: displayEnvironment
    )
    XCTAssertEqual(capture.status, 0, "\(capture.lines)")
    for region in ["420x560+0+0", "420x560+460+0"] {
      let colours = try RunningProgram.run(tools.convert, [screenshot, "-crop", region, "-format", "%k", "info:"])
      XCTAssertGreaterThan(Int(colours.lines.first ?? "") ?? 0, 16, "colours in \(region) of \(screenshot)")
    }
    print("shared-demo-gtk screenshot: \(screenshot)")

    // Bytes that do not decode, written by hand: the error shows, the last good list stays.
    try "[{\"id\": oops".write(toFile: directory.path("suite/todos.json"), atomically: false, encoding: .utf8)
    for window in [left, right] {
      let broken = try window.program.line(startingWith: "shown counter=41 todos=2 problem=todos.json ", within: 5)
      XCTAssertTrue(broken.contains("todos=2"), broken)
    }
  }
}
