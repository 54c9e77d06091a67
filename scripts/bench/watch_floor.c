// The floor under `shared-demo ping` -> `shared-demo watch`: the same path in a few lines of C,
// measured in the same run as the library (scripts/bench/watcher.sh).
//
//   watch_floor watch DIR NAME     waits in select() on an inotify descriptor watching DIR for
//                                  the library's events (and asks ioctl(FIONREAD), as
//                                  libinotifytools does); for
//                                  each rename onto NAME, reads the file and prints
//                                  '<unix-ns-now> <contents>'; ends when the contents are -1.
//   watch_floor write DIR NAME N US [watching]
//                                  N times, US microseconds apart: takes an exclusive flock on a
//                                  lock file, writes its clock (unix ns) into a scratch file and
//                                  exchanges it with NAME (renameat2 RENAME_EXCHANGE), as the
//                                  library's writers do; then writes -1. With `watching`, a
//                                  thread of the writer also watches DIR, as every SharedState
//                                  process does: it wakes for the writer's own events, and for
//                                  each read of events about NAME looks once at the entry
//                                  (fstatat), the least a process must do to tell its own write
//                                  from another's.
//
// Output as `shared-demo watch` prints it, for scripts/bench/latency.py.
#define _GNU_SOURCE
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/select.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_REALTIME, &t);
  return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static int watch(const char *dir, const char *name) {
  int fd = inotify_init1(IN_CLOEXEC);
  // The events the library's watch of a directory asks for (WatchPlan.directoryEvents): a
  // watcher must also hear of a file moved away or deleted, so a write's exchange queues four
  // events (two of them about the scratch file) for it, not the two renames onto a name.
  uint32_t mask = IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE | IN_DELETE_SELF
    | IN_MOVE_SELF | IN_UNMOUNT | IN_ONLYDIR;
  if (fd < 0 || inotify_add_watch(fd, dir, mask) < 0) {
    perror("inotify");
    return 1;
  }
  char path[PATH_MAX];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  printf("0 ready\n");
  fflush(stdout);
  char buffer[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
  for (;;) {
    // libinotifytools waits with select() and asks ioctl(FIONREAD) before each read: so does
    // this.
    fd_set set;
    FD_ZERO(&set);
    FD_SET(fd, &set);
    if (select(fd + 1, &set, NULL, NULL, NULL) < 0) continue;
    int queued = 0;
    if (ioctl(fd, FIONREAD, &queued) < 0) continue;
    ssize_t length = read(fd, buffer, sizeof buffer);
    if (length <= 0) continue;
    for (char *at = buffer; at < buffer + length;) {
      struct inotify_event *event = (struct inotify_event *)at;
      at += sizeof *event + event->len;
      if (!(event->mask & IN_MOVED_TO) || event->len == 0 || strcmp(event->name, name) != 0) continue;
      int file = open(path, O_RDONLY | O_CLOEXEC);
      if (file < 0) continue;
      char contents[64] = {0};
      ssize_t count = read(file, contents, sizeof contents - 1);
      close(file);
      if (count <= 0) continue;
      contents[strcspn(contents, "\n")] = 0;
      printf("%lld %s\n", now_ns(), contents);
      fflush(stdout);
      if (strcmp(contents, "-1") == 0) return 0;
    }
  }
}

struct own_watch {
  int inotify;
  const char *dir, *name;
};

// The writer's own watching thread (see `watching` above).
static void *watch_own_writes(void *argument) {
  struct own_watch *own = argument;
  int directory = open(own->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  char buffer[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
  for (;;) {
    fd_set set;
    FD_ZERO(&set);
    FD_SET(own->inotify, &set);
    if (select(own->inotify + 1, &set, NULL, NULL, NULL) < 0) continue;
    int queued = 0;
    if (ioctl(own->inotify, FIONREAD, &queued) < 0) continue;
    ssize_t length = read(own->inotify, buffer, sizeof buffer);
    if (length <= 0) continue;
    // One look per read that names the file, as the library's reader makes.
    int names_file = 0;
    for (char *at = buffer; at < buffer + length;) {
      struct inotify_event *event = (struct inotify_event *)at;
      at += sizeof *event + event->len;
      if (event->len != 0 && strcmp(event->name, own->name) == 0) names_file = 1;
    }
    if (!names_file) continue;
    struct stat status;
    fstatat(directory, own->name, &status, AT_SYMLINK_NOFOLLOW);
  }
  return NULL;
}

static int write_pings(const char *dir, const char *name, int count, int interval, int watching) {
  if (watching) {
    static struct own_watch own;
    own.inotify = inotify_init1(IN_CLOEXEC);
    own.dir = dir;
    own.name = name;
    uint32_t mask = IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO | IN_CREATE | IN_DELETE;
    pthread_t thread;
    if (own.inotify < 0 || inotify_add_watch(own.inotify, dir, mask) < 0
        || pthread_create(&thread, NULL, watch_own_writes, &own) != 0) {
      perror("watching");
      return 1;
    }
  }
  char target[PATH_MAX], scratch[PATH_MAX], lock[PATH_MAX];
  snprintf(target, sizeof target, "%s/%s", dir, name);
  snprintf(scratch, sizeof scratch, "%s/.%s.floor-scratch", dir, name);
  snprintf(lock, sizeof lock, "%s/.%s.floor-lock", dir, name);
  int lockfd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (lockfd < 0) {
    perror("lock");
    return 1;
  }
  for (int i = 0; i <= count; i++) {
    char text[64];
    int length = i < count ? snprintf(text, sizeof text, "%lld\n", now_ns()) : snprintf(text, sizeof text, "-1\n");
    flock(lockfd, LOCK_EX);
    int file = open(scratch, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (file < 0 || pwrite(file, text, length, 0) != length || ftruncate(file, length) != 0) {
      perror("scratch");
      return 1;
    }
    close(file);
    // The target first, as the library names them (its events then come first).
    if (renameat2(AT_FDCWD, target, AT_FDCWD, scratch, RENAME_EXCHANGE) != 0 && rename(scratch, target) != 0) {
      perror("exchange");
      return 1;
    }
    flock(lockfd, LOCK_UN);
    usleep(interval);
  }
  return 0;
}

int main(int argc, char **argv) {
  if (argc == 4 && strcmp(argv[1], "watch") == 0) return watch(argv[2], argv[3]);
  if ((argc == 6 || (argc == 7 && strcmp(argv[6], "watching") == 0)) && strcmp(argv[1], "write") == 0) {
    return write_pings(argv[2], argv[3], atoi(argv[4]), atoi(argv[5]), argc == 7);
  }
  fprintf(stderr, "usage: watch_floor watch DIR NAME | watch_floor write DIR NAME COUNT INTERVAL_US [watching]\n");
  return 2;
}
