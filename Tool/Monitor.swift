import ArgumentParser
import Foundation
import OpenCombineShim
import SharedState
import SharedStateCommandLine

/// `shared-state monitor`: prints every change, as `gsettings monitor` does.
struct Monitor: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Print every change to a suite's keys, or to one key, as it happens, until interrupted.",
    usage: """
      shared-state monitor <suite> [<key>]
      shared-state monitor --postgres <url> <namespace> [<key>]
      shared-state monitor --file <path>
      """,
    discussion: """
      Each change is one line, 'KEY: VALUE' with VALUE as compact JSON (with --file, the value \
      alone), printed as soon as the change is seen, whichever process or program made it. \
      Nothing is printed for the values as they are when monitoring starts. A key that is \
      reset prints null. Without KEY every key of the suite is followed, keys created later \
      too; in PostgreSQL, the keys that have a value when monitoring starts. Contents that do \
      not decode are reported on standard error, and monitoring goes on. Exits 1 with one \
      sentence when changes cannot be watched (inotify's limits reached, say).
      """
  )

  @OptionGroup var options: ValueOptions

  @Argument(help: "The suite: a name, or a directory path with a '/' in it; with --postgres, the namespace.")
  var suite: String?

  @Argument(help: "The key (default: every key).")
  var key: String?

  @Flag(help: "Print 'ready' on standard error once monitoring has begun: every change made after that line is printed (for scripts that make a change and wait for it).")
  var ready = false

  func validate() throws {
    try options.validate(operands: [suite, key].compactMap { $0 }, keyIsOptional: true)
  }

  func run() async throws {
    try await reportingFailure(as: "shared-state") {
      let place = try options.place(suite: suite, mustExist: true)
      let (signals, signal) = AsyncStream<MonitorSignal>.makeStream()
      var monitored = MonitoredValues(signal: signal)
      var arrivals: DirectoryEvents?
      switch place {
      case .file:
        try monitored.follow(try options.value(in: place, key: nil), label: nil, printingFirst: false)
      case let .suite(directory) where key == nil:
        // Listen for new keys before listing the ones there are: a key made in between is then
        // seen by both, and followed once.
        arrivals = try DirectoryEvents(directory.directory.path) { signal.yield(.keysMade) }
        for key in try options.keys(in: place) {
          try monitored.follow(try options.value(in: place, key: key), label: key, printingFirst: false)
        }
      case .postgres where key == nil:
        for key in try options.keys(in: place) {
          try monitored.follow(try options.value(in: place, key: key), label: key, printingFirst: false)
        }
      case .suite, .postgres:
        guard let key else { return }
        try monitored.follow(try options.value(in: place, key: key), label: key, printingFirst: false)
      }
      if ready { Output.error("ready") }
      defer { withExtendedLifetime(arrivals) {} }
      for await received in signals {
        switch received {
        case .keysMade:
          // A key made since the last look prints its first value: that is its change. One
          // that cannot be opened now is tried again at the next entry made.
          for key in (try? options.keys(in: place)) ?? [] where !monitored.isFollowing(key) {
            try? monitored.follow(try options.value(in: place, key: key), label: key, printingFirst: true)
          }
        case let .unwatched(reason):
          throw CommandError(reason)
        }
      }
    }
  }
}

/// What the monitor's loop hears about.
enum MonitorSignal: Sendable {
  /// Entries were made in the suite's directory: maybe new keys.
  case keysMade
  /// A value cannot be watched, for this reason: the monitor ends.
  case unwatched(String)
}

/// The values a monitor follows, each with a sink printing its changes and a task following its
/// load errors.
struct MonitoredValues {
  private var labels: Swift.Set<String> = []
  private var sinks: [AnyCancellable] = []
  private let signal: AsyncStream<MonitorSignal>.Continuation

  init(signal: AsyncStream<MonitorSignal>.Continuation) {
    self.signal = signal
  }

  /// Whether the value labelled `label` is followed already.
  func isFollowing(_ label: String) -> Bool {
    labels.contains(label)
  }

  /// Follows `value`: each change prints `LABEL: VALUE` (the value alone without a label).
  ///
  /// - Parameter printingFirst: Whether the value as it is now is printed too (a key that has
  ///   just appeared), or only its changes.
  mutating func follow(_ value: StoredValue, label: String?, printingFirst: Bool) throws {
    let shared = try value.openJSON()
    let prefix = label.map { "\($0): " } ?? ""
    sinks.append(
      shared.publisher.dropFirst(printingFirst ? 0 : 1).sink { json in
        Output.line(prefix + json.compactJSON)
      }
    )
    if let label { labels.insert(label) }
    let signal = signal
    Task {
      let reason = await LoadErrors.follow(shared, of: value) { Output.failure($0, program: "shared-state") }
      if let reason { signal.yield(.unwatched("changes to \(value) cannot be watched: \(reason)")) }
    }
  }
}
