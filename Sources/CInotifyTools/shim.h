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

#endif
