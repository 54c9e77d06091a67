/// What PostgreSQL can keep of a key and its namespace, checked before anything is sent: a key the
/// server would refuse is refused here, with a sentence that names the limit, instead of a server
/// error that repeats the whole key.
///
/// The limits, for a server with PostgreSQL's usual 8 kB pages:
/// - **A key** takes at most ``maximumKeyBytes`` bytes of UTF-8, and **a namespace** at most
///   ``maximumNamespaceBytes``. Both are columns of the table's primary key, and a B-tree index
///   entry holds at most 2 704 bytes (a third of a page); 2 048 + 512 leave room for the entry's
///   own headers, whatever the server's compression makes of them. (A server compiled with
///   smaller pages refuses earlier, with its own reason.)
/// - **Neither contains U+0000**, which PostgreSQL's `text` cannot hold.
/// - **The notification** of a write, `["WRITER","NAMESPACE","KEY",VERSION]` (JSON: the
///   writer is a 36-character UUID; in the namespace and the key a control character takes up
///   to 6 bytes, a quote or a backslash 2, anything else its UTF-8), is at most
///   ``maximumNotificationBytes`` bytes long: `NOTIFY` carries less than 8 000 bytes. The
///   check counts the longest version number (19 digits), so that a key that works once works
///   for ever. Only a key made mostly of control characters comes near it.
enum KeyLimits {
  /// The most bytes of UTF-8 a key may take.
  static let maximumKeyBytes = 2048
  /// The most bytes of UTF-8 a namespace may take.
  static let maximumNamespaceBytes = 512
  /// The most bytes a notification payload may take (`NOTIFY` refuses 8 000 and more).
  static let maximumNotificationBytes = 7999
  /// The digits of the largest version, `Int64.max`.
  private static let longestVersion = String(Int64.max).utf8.count

  /// Why a key or a namespace is outside the limits, as a phrase that never repeats either in
  /// full.
  struct Exceeded: Error, CustomStringConvertible {
    let description: String
  }

  /// Checks a namespace alone (listing its keys).
  ///
  /// - Throws: ``Exceeded`` when the namespace is longer than ``maximumNamespaceBytes`` or
  ///   holds U+0000.
  static func check(namespace: String) throws(Exceeded) {
    let bytes = namespace.utf8.count
    if bytes > maximumNamespaceBytes {
      throw Exceeded(
        description: "the namespace takes \(bytes) bytes of UTF-8, more than the \(maximumNamespaceBytes) a namespace may take"
      )
    }
    if namespace.utf8.contains(0) {
      throw Exceeded(description: "the namespace contains the character U+0000, which PostgreSQL's text cannot hold")
    }
  }

  /// Checks a key, its namespace and the start of its notifications (everything but the
  /// version and the closing bracket).
  ///
  /// - Throws: ``Exceeded`` for the first limit the key or the namespace passes.
  static func check(key: String, namespace: String, notificationPrefix: String) throws(Exceeded) {
    let bytes = key.utf8.count
    if bytes > maximumKeyBytes {
      throw Exceeded(
        description: "it takes \(bytes) bytes of UTF-8, more than the \(maximumKeyBytes) a key may take (a longer key does not fit PostgreSQL's index)"
      )
    }
    if key.utf8.contains(0) {
      throw Exceeded(description: "it contains the character U+0000, which PostgreSQL's text cannot hold")
    }
    try check(namespace: namespace)
    let notification = notificationPrefix.utf8.count + longestVersion + 1
    if notification > maximumNotificationBytes {
      throw Exceeded(
        description: "the notification of its writes to other processes would take up to \(notification) bytes, more than the \(maximumNotificationBytes) PostgreSQL's NOTIFY carries (in it, a control character of the key or the namespace takes up to 6 bytes)"
      )
    }
  }
}
