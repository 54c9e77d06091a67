#ifndef SHARED_STATE_C_SYSTEM_CALLS_H
#define SHARED_STATE_C_SYSTEM_CALLS_H

// Linux calls that Swift's Glibc module does not expose, because glibc declares them only under
// _GNU_SOURCE. Each returns what the system call returns and leaves errno set on failure.

/// renameat2(olddirfd, oldpath, newdirfd, newpath, RENAME_EXCHANGE): swaps two names atomically.
int shared_state_exchange(int olddirfd, const char *oldpath, int newdirfd, const char *newpath);

/// fcntl(fd, F_OFD_SETLKW or F_OFD_SETLK, ...) over the whole file: an open-file-description lock.
/// `kind` is 0 to unlock, 1 for a shared lock, 2 for an exclusive one.
int shared_state_ofd_lock(int fd, int kind, int wait);

/// open(directory, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600): an unnamed regular file that vanishes
/// with its last descriptor.
int shared_state_open_unnamed_file(const char *directory);

/// fstatfs(fd, ...): the file system's type (its magic number, f_type) in `*type`.
int shared_state_file_system_type(int fd, long *type);

#endif
