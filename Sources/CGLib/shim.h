#ifndef SHARED_STATE_C_GLIB_H
#define SHARED_STATE_C_GLIB_H

// SharedStateGLib brings changes onto a GLib main loop. Fail with a message that names the
// package to install rather than a bare "file not found".
#if __has_include(<glib.h>)
#include <glib.h>
#include <glib-unix.h>
#else
#error "SharedStateGLib needs GLib's headers. Install them with: apt-get install -y libglib2.0-dev (or libgtk-4-dev, which brings them)"
#endif

// libdispatch's hooks for a foreign event loop that runs the main queue, the pair Foundation's
// run loop uses (exported by libdispatch.so; declared in none of its installed headers).

/// The main queue's event descriptor on Linux, an eventfd: readable once work is enqueued on the
/// main queue. Reading its 8 bytes resets it.
int _dispatch_get_main_queue_handle_4CF(void);

/// Runs the work enqueued on the main queue. Main thread only; returns at once when the main
/// queue is already being drained; must not be called after dispatchMain().
void _dispatch_main_queue_callback_4CF(void *_Nullable message);

#endif
