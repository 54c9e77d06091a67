#define _GNU_SOURCE
#include "CSystemCalls.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <sys/vfs.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/select.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <stdint.h>
#include <unistd.h>

int shared_state_exchange(int olddirfd, const char *oldpath, int newdirfd, const char *newpath) {
  return renameat2(olddirfd, oldpath, newdirfd, newpath, RENAME_EXCHANGE);
}

int shared_state_rename_noreplace(int olddirfd, const char *oldpath, int newdirfd, const char *newpath) {
  return renameat2(olddirfd, oldpath, newdirfd, newpath, RENAME_NOREPLACE);
}

int shared_state_open_directory_path(const char *path) {
  return open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
}

int shared_state_ofd_lock(int fd, int kind, int wait) {
  struct flock lock = {0};
  lock.l_type = kind == 0 ? F_UNLCK : (kind == 1 ? F_RDLCK : F_WRLCK);
  lock.l_whence = SEEK_SET;
  lock.l_start = 0;
  lock.l_len = 0;  // the whole file, however long it grows
  lock.l_pid = 0;  // required by open-file-description locks
  return fcntl(fd, wait ? F_OFD_SETLKW : F_OFD_SETLK, &lock);
}

int shared_state_open_unnamed_file(const char *directory) {
  return open(directory, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
}

int shared_state_file_system_type(int fd, long *type) {
  struct statfs status;
  int result = fstatfs(fd, &status);
  if (result == 0) *type = (long)status.f_type;
  return result;
}

// The reserved slot, and the inode of the unnamed file that holds it: a program that closes the
// slot (a daemon closing every descriptor, say) and opens something else there must not lose
// that to shared_state_release_low_descriptor.
static int reserved_descriptor = -1;
static ino_t reserved_inode = 0;

int shared_state_reserve_low_descriptor(void) {
  if (reserved_descriptor >= 0) return reserved_descriptor;
  int descriptor = memfd_create("sharedstate-descriptor-reserve", MFD_CLOEXEC);
  if (descriptor < 0) return -1;
  struct stat status;
  if (descriptor >= FD_SETSIZE || fstat(descriptor, &status) != 0) {
    close(descriptor);
    return -1;
  }
  reserved_descriptor = descriptor;
  reserved_inode = status.st_ino;
  return descriptor;
}

int shared_state_release_low_descriptor(void) {
  int descriptor = reserved_descriptor;
  if (descriptor < 0) return -1;
  reserved_descriptor = -1;
  struct stat status;
  if (fstat(descriptor, &status) != 0 || status.st_ino != reserved_inode) return -1;
  close(descriptor);
  return descriptor;
}

// Runs when the library is loaded, before the program has opened many descriptors.
__attribute__((constructor)) static void shared_state_reserve_at_load(void) {
  shared_state_reserve_low_descriptor();
}

int shared_state_set_timer_slack(unsigned long nanoseconds) {
  return prctl(PR_SET_TIMERSLACK, nanoseconds, 0, 0, 0);
}

int shared_state_name_thread(const char *name) {
  return prctl(PR_SET_NAME, name, 0, 0, 0);
}

int shared_state_block_asynchronous_signals(void) {
  sigset_t signals;
  sigfillset(&signals);
  int faults[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGSYS};
  for (unsigned i = 0; i < sizeof faults / sizeof faults[0]; i++) sigdelset(&signals, faults[i]);
  return pthread_sigmask(SIG_BLOCK, &signals, NULL);
}

int shared_state_timer_create(void) {
  return timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
}

int shared_state_timer_set(int fd, unsigned long long nanoseconds) {
  struct itimerspec setting = {0};
  setting.it_value.tv_sec = (time_t)(nanoseconds / 1000000000ULL);
  setting.it_value.tv_nsec = (long)(nanoseconds % 1000000000ULL);
  return timerfd_settime(fd, 0, &setting, NULL);
}

int shared_state_timer_wait(int fd) {
  uint64_t expirations;
  return read(fd, &expirations, sizeof expirations) == (ssize_t)sizeof expirations ? 0 : -1;
}
