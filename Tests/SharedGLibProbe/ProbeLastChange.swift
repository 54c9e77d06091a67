/// The demo's `last-change` value (the same fields and encoding as `LastChange` in Demo/UI and
/// DemoGTK): who changed the suite last, its change count, and when.
struct ProbeLastChange: Codable, Equatable, Sendable {
  var pid: Int32
  var sequence: Int
  var unixNanoseconds: UInt64
}
