#ifndef SHARED_STATE_C_GTK_H
#define SHARED_STATE_C_GTK_H

// The GTK demo's window. Fail with a message that names the package to install rather than a
// bare "file not found".
#if __has_include(<gtk/gtk.h>)
#include <gtk/gtk.h>
#else
#error "shared-demo-gtk needs GTK 4's headers. Install them with: apt-get install -y libgtk-4-dev"
#endif

// What Swift cannot import from GTK: g_signal_connect and the cast macros are macros, and
// g_object_set is variadic. Each helper is what it names, as a function.

/// A handler that receives only its user data: connected with G_CONNECT_SWAPPED, the user data
/// comes first and the signal's other arguments, which it ignores, after it. For signals that
/// return nothing.
typedef void (*shared_demo_action)(gpointer data);

/// g_signal_connect_data(instance, signal, handler, data, destroy, G_CONNECT_SWAPPED).
static inline gulong shared_demo_connect(gpointer instance, const char *signal,
                                         shared_demo_action handler, gpointer data,
                                         GClosureNotify destroy) {
  return g_signal_connect_data(instance, signal, G_CALLBACK(handler), data, destroy,
                               G_CONNECT_SWAPPED);
}

static inline GtkWindow *shared_demo_window(GtkWidget *widget) { return GTK_WINDOW(widget); }
static inline GtkBox *shared_demo_box(GtkWidget *widget) { return GTK_BOX(widget); }
static inline GtkLabel *shared_demo_label(GtkWidget *widget) { return GTK_LABEL(widget); }
static inline GtkSwitch *shared_demo_switch(GtkWidget *widget) { return GTK_SWITCH(widget); }
static inline GtkDropDown *shared_demo_drop_down(GtkWidget *widget) { return GTK_DROP_DOWN(widget); }
static inline GtkEntry *shared_demo_entry(GtkWidget *widget) { return GTK_ENTRY(widget); }
static inline GtkEditable *shared_demo_editable(GtkWidget *widget) { return GTK_EDITABLE(widget); }
static inline GtkCheckButton *shared_demo_check_button(GtkWidget *widget) { return GTK_CHECK_BUTTON(widget); }
static inline GtkScrolledWindow *shared_demo_scrolled_window(GtkWidget *widget) { return GTK_SCROLLED_WINDOW(widget); }
static inline GtkNative *shared_demo_native(GtkWidget *widget) { return GTK_NATIVE(widget); }
static inline GApplication *shared_demo_application(GtkApplication *application) { return G_APPLICATION(application); }

/// Whether GTK draws this process's windows with the dark variant of the theme:
/// g_object_set on the "gtk-application-prefer-dark-theme" setting.
static inline void shared_demo_prefer_dark_theme(gboolean dark) {
  g_object_set(gtk_settings_get_default(), "gtk-application-prefer-dark-theme", dark, NULL);
}

#endif
