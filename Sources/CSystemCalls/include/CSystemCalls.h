#ifndef SHARED_STATE_C_SYSTEM_CALLS_H
#define SHARED_STATE_C_SYSTEM_CALLS_H

// Linux calls that Swift's Glibc module does not expose, because glibc declares them only under
// _GNU_SOURCE. Each returns what the system call returns and leaves errno set on failure.

/// renameat2(olddirfd, oldpath, newdirfd, newpath, RENAME_EXCHANGE): swaps two names atomically.
int shared_state_exchange(int olddirfd, const char *oldpath, int newdirfd, const char *newpath);

/// renameat2(olddirfd, oldpath, newdirfd, newpath, RENAME_NOREPLACE): renames only when nothing
/// is at the new name (EEXIST otherwise), in one atomic step.
int shared_state_rename_noreplace(int olddirfd, const char *oldpath, int newdirfd, const char *newpath);

/// open(path, O_PATH | O_DIRECTORY | O_CLOEXEC): a directory held open to look names up in
/// (openat, fstatat, renameat2), which needs no permission on the directory itself.
int shared_state_open_directory_path(const char *path);

/// fcntl(fd, F_OFD_SETLKW or F_OFD_SETLK, ...) over the whole file: an open-file-description lock.
/// `kind` is 0 to unlock, 1 for a shared lock, 2 for an exclusive one.
int shared_state_ofd_lock(int fd, int kind, int wait);

/// open(directory, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600): an unnamed regular file that vanishes
/// with its last descriptor.
int shared_state_open_unnamed_file(const char *directory);

/// fstatfs(fd, ...): the file system's type (its magic number, f_type) in `*type`.
int shared_state_file_system_type(int fd, long *type);

/// Gives up the descriptor slot this library holds in reserve below 1024 (FD_SETSIZE), so that the
/// next descriptor the process opens takes it (or a lower one). Returns the slot, or -1 when there
/// is none: never reserved, or the program closed it (then nothing is closed).
///
/// libinotifytools waits on its inotify descriptor with select(), which cannot take a descriptor
/// of 1024 or more; it opens that descriptor with inotify_init(), which takes the lowest free
/// slot. A slot reserved when the library is loaded, before the program opens many files, keeps
/// one free below 1024 for it.
int shared_state_release_low_descriptor(void);

/// Reserves the lowest free descriptor slot, when it is below 1024: see
/// shared_state_release_low_descriptor. Returns the slot, or -1 (nothing is held then).
int shared_state_reserve_low_descriptor(void);

/// prctl(PR_SET_TIMERSLACK, nanoseconds): how late the calling thread's timed sleeps may end
/// (50 µs by default). Returns 0, or -1 with errno set.
int shared_state_set_timer_slack(unsigned long nanoseconds);

/// prctl(PR_SET_NAME, name): names the calling thread for the kernel (`/proc/PID/task/*/comm`,
/// `ps`, `perf`); longer names are cut at 15 bytes. Returns 0, or -1 with errno set.
int shared_state_name_thread(const char *name);

/// Blocks, in the calling thread, every signal but those a fault raises (SIGSEGV, SIGBUS,
/// SIGFPE, SIGILL, SIGTRAP, SIGSYS), so that the program's signals go to its own threads.
/// Returns 0, or an error number.
int shared_state_block_asynchronous_signals(void);

/// timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC): a timer read as a descriptor. Returns it, or -1
/// with errno set.
int shared_state_timer_create(void);

/// timerfd_settime(fd, 0, ...): arms the timer to expire once, `nanoseconds` from now, or disarms
/// it when `nanoseconds` is 0. Returns 0, or -1 with errno set.
int shared_state_timer_set(int fd, unsigned long long nanoseconds);

/// read(fd, 8 bytes): waits until the timer expires. Returns 0, or -1 with errno set.
int shared_state_timer_wait(int fd);

#endif
