/// The registrations one turn of the reader left to deliver (see
/// ``DeliveryThreads/startReading(_:)``): almost always none or one, which need no array of their
/// own. (An array cost two allocations per change: the routing's and the turn's.)
enum ReadyRegistrations: RandomAccessCollection, ExpressibleByArrayLiteral {
  case none
  case one(FileWatchRegistration)
  case many([FileWatchRegistration])

  init(_ registrations: [FileWatchRegistration]) {
    switch registrations.count {
    case 0: self = .none
    case 1: self = .one(registrations[0])
    default: self = .many(registrations)
    }
  }

  init(arrayLiteral registrations: FileWatchRegistration...) {
    self.init(registrations)
  }

  var startIndex: Int { 0 }

  var endIndex: Int {
    switch self {
    case .none: 0
    case .one: 1
    case let .many(registrations): registrations.count
    }
  }

  subscript(position: Int) -> FileWatchRegistration {
    switch self {
    case .none:
      preconditionFailure("no registration is ready")
    case let .one(registration):
      precondition(position == 0, "one registration is ready")
      return registration
    case let .many(registrations):
      return registrations[position]
    }
  }
}
