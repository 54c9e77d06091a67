import ArgumentParser
import SharedStateCommandLine

/// Where a command's value is: the storage options, then SUITE and KEY (none with `--file`).
/// What `get`, `reset` and `increment` take, declared once.
struct KeyOperands: ParsableArguments {
  @OptionGroup var options: ValueOptions

  @Argument(help: "The suite: a name, or a directory path with a '/' in it; with --postgres, the namespace.")
  var suite: String?

  @Argument(help: "The key.")
  var key: String?

  /// SUITE and KEY, whichever were given.
  var operands: [String] { [suite, key].compactMap { $0 } }

  func validate() throws { try options.validate(operands: operands) }

  /// The value the operands name; `mustExist`: a suite that does not exist is an error rather
  /// than created.
  func value(mustExist: Bool) throws -> StoredValue {
    try options.value(operands, mustExist: mustExist)
  }
}
