/// The earlier name of ``SharedKey``.
@available(*, deprecated, renamed: "SharedKey")
public typealias PersistenceKey = SharedKey

/// The earlier name of ``SharedReaderKey``.
@available(*, deprecated, renamed: "SharedReaderKey")
public typealias PersistenceReaderKey = SharedReaderKey

/// The earlier name of ``SharedKeyDefault``.
@available(*, deprecated, renamed: "SharedKeyDefault")
public typealias PersistenceKeyDefault<Base: SharedReaderKey> = SharedKeyDefault<Base>
