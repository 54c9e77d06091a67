#!/usr/bin/env bash
# Runs swift-sharing's own test suite against this package, to measure source compatibility.
#
#   scripts/upstream-tests.sh <swift-sharing checkout> [harness directory] [swift test options…]
#
# The checkout is one you made yourself (for example `git clone` of swift-sharing and
# `git checkout 2.8.2`); this script fetches nothing and the repository holds none of
# swift-sharing's code. It writes a scratch package (default: /tmp/sharedstate-upstream-harness)
# whose test target is swift-sharing's `Tests/SharingTests`, changed only as follows:
#
# - `import Sharing` becomes `import SharedState`, `import Combine` becomes `import OpenCombineShim`;
# - files that use swift-sharing's package-internal `Mutex` also import `Synchronization`;
# - the Apple-only guards around the app storage, file storage and publisher tests are lifted
#   (those tests need nothing Apple-only here); the SwiftUI bindings' file keeps its guard;
# - two stand-ins the tests would otherwise get from swift-sharing's package: a
#   `withPerceptionTracking` over Observation's `withObservationTracking` (module PerceptionCore),
#   and `Data.stub` (swift-sharing's placeholder bytes, package-internal there).
#
# It then builds the test target, prints the compile errors if any, and runs the tests (pass
# extra `swift test` options after the harness directory, e.g. `--filter IsLoadingTests`).
#
# CUSTOM_DUMP_CHECKOUT=<directory> resolves swift-custom-dump from that checkout instead of the
# newest release this package accepts: the harness then depends on it by path, which overrides
# every other requirement of swift-custom-dump. swift-sharing 2.8.2 pins 1.6.0, and its
# `customDump`, `customDumpWithProjection` and `SharedChangeTrackerTests.basics` expect 1.6.0's
# numbering of dumped objects (1.7 leaves the first object unnamed), whatever library is under
# test. SwiftPM names a package after its directory, so the directory must be called
# `swift-custom-dump`, for example:
#
#   git clone https://github.com/pointfreeco/swift-custom-dump /tmp/cd160/swift-custom-dump
#   git -C /tmp/cd160/swift-custom-dump checkout 1.6.0
#   CUSTOM_DUMP_CHECKOUT=/tmp/cd160/swift-custom-dump scripts/upstream-tests.sh …
#
# SwiftPM accepts the override of this package's `from: "1.7.3"` with a warning about a
# conflicting identity (which it says will become an error); this package builds against 1.6.0.
# Use another harness directory for each choice, or SwiftPM rebuilds everything on each switch.
set -euo pipefail

upstream=${1:?usage: upstream-tests.sh <swift-sharing checkout> [harness directory] [swift test options…]}
harness=${2:-/tmp/sharedstate-upstream-harness}
shift; [ $# -gt 0 ] && shift
here=$(cd "$(dirname "$0")/.." && pwd)
upstream=$(cd "$upstream" && pwd)
[ -d "$upstream/Tests/SharingTests" ] || { echo "no Tests/SharingTests in $upstream" >&2; exit 2; }
case "$harness" in "$here"|"$here"/*) echo "the harness must live outside the repository" >&2; exit 2;; esac
custom_dump='.package(url: "https://github.com/pointfreeco/swift-custom-dump", from: "1.0.0")'
if [ -n "${CUSTOM_DUMP_CHECKOUT:-}" ]; then
  checkout=$(cd "$CUSTOM_DUMP_CHECKOUT" && pwd)
  [ "$(basename "$checkout")" = swift-custom-dump ] || {
    echo "CUSTOM_DUMP_CHECKOUT must be a directory named swift-custom-dump (SwiftPM names a package after it)" >&2
    exit 2
  }
  custom_dump=".package(path: \"$checkout\")"
fi

mkdir -p "$harness/Sources/PerceptionCore" "$harness/Tests/SharingTests"
[ -f "$here/Package.resolved" ] && cp "$here/Package.resolved" "$harness/Package.resolved"

cat > "$harness/Package.swift.new" <<EOF
// swift-tools-version: 6.0
import PackageDescription

let package = Package(
  name: "upstream-harness",
  dependencies: [
    .package(path: "$here"),
    .package(url: "https://github.com/pointfreeco/combine-schedulers", from: "1.0.0"),
    .package(url: "https://github.com/pointfreeco/swift-concurrency-extras", from: "1.3.0"),
    $custom_dump,
    .package(url: "https://github.com/pointfreeco/swift-dependencies", from: "1.5.1"),
    .package(url: "https://github.com/pointfreeco/swift-identified-collections", from: "1.0.0"),
    .package(url: "https://github.com/pointfreeco/xctest-dynamic-overlay", from: "1.4.3"),
    .package(url: "https://github.com/OpenCombine/OpenCombine", from: "0.14.0"),
  ],
  targets: [
    .target(name: "PerceptionCore"),
    .testTarget(
      name: "SharingTests",
      dependencies: [
        "PerceptionCore",
        .product(name: "SharedState", package: "$(basename "$here")"),
        .product(name: "CombineSchedulers", package: "combine-schedulers"),
        .product(name: "ConcurrencyExtras", package: "swift-concurrency-extras"),
        .product(name: "CustomDump", package: "swift-custom-dump"),
        .product(name: "Dependencies", package: "swift-dependencies"),
        .product(name: "DependenciesTestSupport", package: "swift-dependencies"),
        .product(name: "IdentifiedCollections", package: "swift-identified-collections"),
        .product(name: "IssueReporting", package: "xctest-dynamic-overlay"),
        .product(name: "OpenCombineShim", package: "OpenCombine"),
      ],
      // The same upcoming features swift-sharing's package turns on for its tests.
      swiftSettings: [
        .enableUpcomingFeature("ExistentialAny"),
        .enableUpcomingFeature("ImmutableWeakCaptures"),
        .enableUpcomingFeature("InferIsolatedConformances"),
        .enableUpcomingFeature("InternalImportsByDefault"),
        .enableUpcomingFeature("MemberImportVisibility"),
        .enableUpcomingFeature("NonisolatedNonsendingByDefault"),
      ]
    ),
  ],
  swiftLanguageModes: [.v6]
)
EOF

cat > "$harness/PerceptionCore.swift.new" <<'EOF'
// Stand-in for the one function the tests use from swift-perception: on Linux, Observation.
public import Observation

public func withPerceptionTracking<T>(
  _ apply: () -> T, onChange: @autoclosure () -> @Sendable () -> Void
) -> T {
  withObservationTracking(apply, onChange: onChange())
}
EOF

cat > "$harness/HarnessStandIns.swift.new" <<'EOF'
import Foundation

extension Data {
  /// The placeholder bytes swift-sharing's file storage writes (package-internal there).
  static let stub = Data("co.pointfree.Sharing.FileStorage.stub".utf8)
}
EOF

# Each file is rewritten only when its contents change, dated two seconds back: the compiler
# refuses an input whose date is later than the start of the build.
install_if_changed() { # scratch target
  if cmp -s "$1" "$2"; then rm -f "$1"; else mv "$1" "$2"; touch -d "@$(( $(date +%s) - 2 ))" "$2"; fi
}
install_if_changed "$harness/Package.swift.new" "$harness/Package.swift"
install_if_changed "$harness/PerceptionCore.swift.new" "$harness/Sources/PerceptionCore/PerceptionCore.swift"
install_if_changed "$harness/HarnessStandIns.swift.new" "$harness/Tests/SharingTests/HarnessStandIns.swift"
for file in "$upstream"/Tests/SharingTests/*.swift; do
  name=$(basename "$file")
  scratch="$harness/$name.new"
  sed -e 's/import Sharing$/import SharedState/' \
      -e 's/^\( *\)import Combine$/\1import OpenCombineShim/' \
      -e 's/^#if canImport(AppKit) || canImport(UIKit) || canImport(WatchKit)$/#if true/' \
      -e 's/^\( *\)#if canImport(Combine)$/\1#if true/' \
      "$file" > "$scratch"
  if grep -q 'Mutex<' "$file"; then
    sed -i '1s/^/import Synchronization\n/' "$scratch"
  fi
  install_if_changed "$scratch" "$harness/Tests/SharingTests/$name"
done

cd "$harness"
if ! swift build --build-tests 2>&1 | tee build.log | grep -a -E 'error:' | sort -u; then :; fi
if grep -a -q 'error:' build.log; then
  echo "compile errors: $(grep -a -E '^/.*error:' build.log | sort -u | wc -l)"
  exit 1
fi
swift test --skip-build "$@"
