import Dispatch
import Foundation
import SharedState
import SharedStateCommandLine

/// Gathers what the window reacts to into one stream: bytes from the terminal, signals, and
/// changes of the shared values (made here or in other processes).
final class DemoEvents {
  let stream: AsyncStream<DemoEvent>
  private let continuation: AsyncStream<DemoEvent>.Continuation
  private var sources: [any DispatchSourceProtocol] = []
  private var tasks: [Task<Void, Never>] = []

  /// Starts listening. Call ``stop()`` when done.
  init(model: DemoModel) {
    (stream, continuation) = AsyncStream<DemoEvent>.makeStream()
    let queue = DispatchQueue(label: "shared-demo.ui.events")
    let continuation = continuation

    let input = DispatchSource.makeReadSource(fileDescriptor: STDIN_FILENO, queue: queue)
    input.setEventHandler {
      var buffer = [UInt8](repeating: 0, count: 4096)
      let count = read(STDIN_FILENO, &buffer, buffer.count)
      if count > 0 {
        continuation.yield(.input(Array(buffer[..<count])))
      } else if count == 0 || (errno != EINTR && errno != EAGAIN) {
        // The terminal is gone.
        continuation.yield(.terminate)
      }
    }
    sources.append(input)

    let signals: [(Int32, DemoEvent)] = [
      (SIGWINCH, .resized), (SIGINT, .terminate), (SIGTERM, .terminate), (SIGHUP, .terminate),
    ]
    for (number, event) in signals {
      // Ignored as signals, so that they arrive only through the dispatch source (and the
      // terminal can be restored before exiting).
      signal(number, SIG_IGN)
      let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
      source.setEventHandler { continuation.yield(event) }
      sources.append(source)
    }
    sources.forEach { $0.resume() }

    forward(model.counter)
    model.toggles.forEach(forward)
    forward(model.theme)
    forward(model.todos)
    let lastChange = model.lastChange
    tasks.append(Task {
      for await value in lastChange.values {
        continuation.yield(.lastChange(value, receivedAt: Output.unixNanoseconds()))
      }
    })
  }

  /// Yields ``DemoEvent/changed`` for each change of `shared`, and of its load error (bytes
  /// that do not decode leave the value as it was, so its change stream says nothing).
  private func forward<Value: Sendable>(_ shared: Shared<Value>) {
    let continuation = continuation
    tasks.append(Task {
      for await _ in shared.values {
        continuation.yield(.changed)
      }
    })
    tasks.append(Task {
      while !Task.isCancelled {
        await Observed.nextChange { _ = shared.loadError }
        continuation.yield(.changed)
      }
    })
  }

  /// Stops listening and ends the stream.
  func stop() {
    sources.forEach { $0.cancel() }
    tasks.forEach { $0.cancel() }
    continuation.finish()
  }
}
