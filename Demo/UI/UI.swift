import ArgumentParser
import Foundation
import SharedState
import SharedStateCommandLine

/// `shared-demo ui`: an interactive window on a suite's shared state; every window on the same
/// suite follows the others live.
struct UI: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Show a suite's (or a PostgreSQL namespace's) counter, settings and to-do list in the terminal, live, and change them with keys.",
    discussion: """
      Run it in two terminals on the same --suite: a change in one appears in the other at \
      once. Keys: + and - change the counter, 1 2 3 flip the settings, t picks the theme, a adds \
      a to-do, e edits, space marks it done, d deletes, up and down select, q quits.
      """
  )

  @Option(help: "The app-storage suite directory the windows share (created when first written).")
  var suite: String?

  @OptionGroup var postgres: PostgresOptions

  func validate() throws {
    guard (suite == nil) != (postgres.url == nil) else {
      throw ValidationError("Give either --suite DIR or --postgres URL.")
    }
  }

  func run() async throws {
    try await reportingFailure {
      let model =
        if let store = postgres.store {
          DemoModel(postgres: store, pid: getpid(), now: Output.unixNanoseconds)
        } else {
          DemoModel(
            suite: AppStorageSuite(directory: URL(fileURLWithPath: suite ?? "")),
            pid: getpid(),
            now: Output.unixNanoseconds
          )
        }
      let terminal = try Terminal()
      defer { terminal.restore() }
      let events = DemoEvents(model: model)
      defer { events.stop() }

      var decoder = KeyDecoder()
      var frames = FrameWriter()
      func draw() {
        let size = terminal.size
        let lines = DemoRenderer.lines(for: model.snapshot(), width: size.width, height: size.height)
        if let output = frames.output(for: lines) {
          terminal.write(output)
        }
      }

      draw()
      loop: for await event in events.stream {
        switch event {
        case let .input(bytes):
          for key in decoder.decode(bytes) where model.handle(key) == .quit {
            break loop
          }
        case .resized:
          frames.invalidate()
        case .changed:
          break
        case let .lastChange(change, receivedAt):
          model.receive(change, at: receivedAt)
        case .terminate:
          break loop
        }
        draw()
      }
    }
  }
}
