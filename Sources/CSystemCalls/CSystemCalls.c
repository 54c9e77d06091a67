#define _GNU_SOURCE
#include "CSystemCalls.h"

#include <fcntl.h>
#include <stdio.h>
#include <sys/vfs.h>

int shared_state_exchange(int olddirfd, const char *oldpath, int newdirfd, const char *newpath) {
  return renameat2(olddirfd, oldpath, newdirfd, newpath, RENAME_EXCHANGE);
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
