#ifndef SHARED_STATE_C_INOTIFY_TOOLS_H
#define SHARED_STATE_C_INOTIFY_TOOLS_H

// SharedState watches files through Debian's libinotifytools. Fail with a message that names the
// package to install rather than a bare "file not found".
#if __has_include(<inotifytools/inotifytools.h>)
#include <inotifytools/inotify.h>
#include <inotifytools/inotifytools.h>
#else
#error "SharedState needs libinotifytools. Install it with: apt-get install -y libinotifytools0-dev"
#endif

// The name of the file an event is about, or "" for an event about the watched item itself.
// (Swift does not import the flexible array member `name`.)
static inline const char *shared_state_event_name(const struct inotify_event *event) {
  return event->len > 0 ? event->name : "";
}

#endif
