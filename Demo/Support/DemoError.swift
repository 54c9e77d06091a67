/// A failure the tool reports as one sentence on standard error, exiting with status 1.
struct DemoError: Error, CustomStringConvertible {
  let description: String

  init(_ description: String) {
    self.description = description
  }
}
