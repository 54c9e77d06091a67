// The floor of scripts/bench.sh: SharedState's file protocol in C, without Swift or JSON
// coding. Increments a counter stored as decimal text in FILE, N times, with per increment
// exactly the writer's system calls of Storage/Files (PathLock, FreshnessCheck, FileReplacement),
// each name after the lock looked up in FILE's directory, held open (O_PATH) with the lock file
// (the library's EntryNames):
//   fcntl(F_OFD_SETLKW) + fstat (lock file still linked) on the lock file + fstatat of its name
//   (still the file there),
//   fstatat(target); the value from the mapped coordination page when it describes the target,
//   fstatat(scratch) (still our inode), [open of the directory], the page's announcement of the
//   contents and the scratch's inode, pwrite (+ ftruncate when the length changes) of the
//   persistent scratch descriptor, [fsync], renameat2(RENAME_EXCHANGE),
//   fstat of the new target, the page's seqlock update, [fsync and close of the directory],
//   fcntl(F_UNLCK).
//
// With `watch`, the process also watches FILE's directory as every SharedState process does: a
// thread reading an inotify descriptor (the events SharedState asks for) as libinotifytools,
// through which the library must read, does for each batch: select(), ioctl(FIONREAD), read().
// Once for each read whose events name FILE (the library's reader looks once per file and
// read), it looks as the library's FreshnessCheck does: the page's sequence,
// then the entry at FILE (fstatat: the identity that tells a program that takes no lock from a
// cooperating writer), and takes the value from the page under its seqlock when either changed,
// or, while a write is under way, what that write announced once its inode is at FILE; and it
// paces its reading as the library's does (Storage/Watching/ReadingPace.swift): a wake-up less
// than 1 ms after the previous one is a
// burst, and in a burst it waits again no sooner than 100 µs after the last wake-up, with the
// library's 1 ns of timer slack; and it runs under the default scheduling policy, as the
// library's threads do. That is the floor of the
// default configuration, where every process watches.
//
// usage: protocol_counter FILE TIMES START_AT_UNIX_NS [fsync] [watch]
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sched.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/select.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum { PAGE = 4096, CONTENTS = 128 };

static void sleep_until(long long deadline_ns) {
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  long long wait = deadline_ns - ((long long)now.tv_sec * 1000000000LL + now.tv_nsec);
  if (wait <= 0) return;
  struct timespec pause = {wait / 1000000000LL, wait % 1000000000LL};
  nanosleep(&pause, NULL);
}

static void die(const char *what) {
  perror(what);
  exit(1);
}

static int lock_file(int fd, short type) {
  struct flock lock = {.l_type = type, .l_whence = SEEK_SET};
  return fcntl(fd, type == F_UNLCK ? F_OFD_SETLK : F_OFD_SETLKW, &lock);
}

static void identity(uint64_t *words, const struct stat *s) {
  words[0] = s->st_dev;
  words[1] = s->st_ino;
  words[2] = s->st_size;
  words[3] = s->st_mtim.tv_sec;
  words[4] = s->st_mtim.tv_nsec;
  words[5] = s->st_ctim.tv_sec;
  words[6] = s->st_ctim.tv_nsec;
}

struct watch {
  int inotify;
  const char *name;
  const char *target;
  volatile uint64_t *page;
};

static long long monotonic_ns(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (long long)now.tv_sec * 1000000000LL + now.tv_nsec;
}

// The watching thread: what a watching process must do for each event, at the least.
static void *watch_directory(void *argument) {
  struct watch *watch = argument;
  // The library's watching threads ask for 1 ns of timer slack (DeliveryThreads), so that their
  // pauses last what they say: with the default 50 µs, this thread's 100 µs pause took up to
  // half as long again, and it woke (and was woken by the writer) less often than the library's.
  prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
  char buffer[64 * 1024] __attribute__((aligned(8)));
  uint64_t seen = 0;
  long value = 0;
  long long last_wake_up = -1;
  int in_burst = 0;
  for (;;) {
    if (in_burst) {
      long long left = last_wake_up + 100000 - monotonic_ns();
      if (left > 0) nanosleep(&(struct timespec){0, left}, NULL);
    }
    long long start = monotonic_ns();
    // libinotifytools' inotifytools_next_event(): select() until the descriptor is readable,
    // ioctl(FIONREAD) until a whole event is there, then one read() of all that is queued.
    fd_set readable;
    FD_ZERO(&readable);
    FD_SET(watch->inotify, &readable);
    if (select(watch->inotify + 1, &readable, NULL, NULL, NULL) < 0) {
      if (errno == EINTR) continue;
      return NULL;
    }
    int queued = 0;
    if (ioctl(watch->inotify, FIONREAD, &queued) < 0) return NULL;
    ssize_t length = read(watch->inotify, buffer, sizeof buffer);
    long long end = monotonic_ns();
    if (end - start >= 10000) {  // a wake-up, not events already queued
      if (last_wake_up >= 0) in_burst = end - last_wake_up < 1000000;
      last_wake_up = end;
    }
    if (length <= 0) {
      if (length < 0 && errno == EINTR) continue;
      return NULL;
    }
    // As the library's reader: one look for the file per read, however many of the read's
    // events name it (every event of a read was queued before the first is handled).
    int names_file = 0;
    for (char *at = buffer; at < buffer + length;) {
      struct inotify_event *event = (struct inotify_event *)at;
      at += sizeof *event + event->len;
      if (event->len != 0 && strcmp(event->name, watch->name) == 0) names_file = 1;
    }
    if (!names_file) continue;
    // The seqlock: an even sequence, the same before and after the copy.
    uint64_t before = __atomic_load_n(&watch->page[0], __ATOMIC_ACQUIRE);
    struct stat entry;
    if (before & 1) {
      // A write under way: as the library's look, take what it announced once its inode is at
      // FILE, and no later write began.
      if (__atomic_load_n(&watch->page[11], __ATOMIC_ACQUIRE) != before + 1) continue;
      char text[64] = {0};
      size_t size = watch->page[14] < 63 ? watch->page[14] : 63;
      memcpy(text, (char *)watch->page + CONTENTS, size);
      if (fstatat(AT_FDCWD, watch->target, &entry, AT_SYMLINK_NOFOLLOW) != 0) continue;
      if (entry.st_ino != watch->page[13] || (uint64_t)entry.st_dev != watch->page[12]
          || (uint64_t)entry.st_size != watch->page[14]) continue;
      __atomic_thread_fence(__ATOMIC_ACQUIRE);
      uint64_t now = __atomic_load_n(&watch->page[0], __ATOMIC_RELAXED);
      if (now != before && now != before + 1) continue;
      seen = before;
      value = atol(text);
      continue;
    }
    if (fstatat(AT_FDCWD, watch->target, &entry, AT_SYMLINK_NOFOLLOW) != 0) continue;
    if (before == seen && entry.st_ino == watch->page[3] && entry.st_ctim.tv_nsec == (long)watch->page[8]) continue;
    char text[64] = {0};
    size_t size = watch->page[10] < 63 ? watch->page[10] : 63;
    memcpy(text, (char *)watch->page + CONTENTS, size);
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    if (__atomic_load_n(&watch->page[0], __ATOMIC_RELAXED) != before) continue;
    seen = before;
    value = atol(text);
  }
  (void)value;
}

int main(int argc, char **argv) {
  int durable = 0, watching = 0;
  for (int i = 4; i < argc; i++) {
    if (strcmp(argv[i], "fsync") == 0) durable = 1;
    else if (strcmp(argv[i], "watch") == 0) watching = 1;
    else argc = 0;
  }
  if (argc < 4) {
    fprintf(stderr, "usage: protocol_counter FILE TIMES START_AT_UNIX_NS [fsync] [watch]\n");
    return 2;
  }
  const char *target = argv[1];
  char copy[4096], lock_path[4200];
  snprintf(copy, sizeof copy, "%s", target);
  char *name = basename(copy);
  char directory_copy[4096];
  snprintf(directory_copy, sizeof directory_copy, "%s", target);
  char *directory = dirname(directory_copy);
  snprintf(lock_path, sizeof lock_path, "%s/.%s.sharedstate-lock", directory, name);
  long times = atol(argv[2]);

  char lock_name[4200], scratch_name[4200];
  snprintf(lock_name, sizeof lock_name, ".%s.sharedstate-lock", name);
  snprintf(scratch_name, sizeof scratch_name, ".%s.sharedstate-scratch", name);
  // The directory the lock file is in, held open with it: every name a transaction uses after
  // taking the lock is looked up in it (the library's PathLock and EntryNames).
  int anchor = open(directory, O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (anchor < 0) die("open directory");
  int lock = openat(anchor, lock_name, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
  if (lock < 0) die("open lock");
  if (posix_fallocate(lock, 0, PAGE) != 0) die("fallocate");
  uint64_t *page = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, lock, 0);
  if (page == MAP_FAILED) die("mmap");
  if (watching) {
    static struct watch watch;
    watch.inotify = inotify_init1(IN_CLOEXEC);
    if (watch.inotify < 0) die("inotify_init1");
    uint32_t mask = IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO | IN_CREATE | IN_DELETE
      | IN_DELETE_SELF | IN_MOVE_SELF | IN_UNMOUNT | IN_ONLYDIR;
    if (inotify_add_watch(watch.inotify, directory, mask) < 0) die("inotify_add_watch");
    watch.name = name;
    watch.target = target;
    watch.page = page;
    pthread_t thread;
    if (pthread_create(&thread, NULL, watch_directory, &watch) != 0) die("pthread_create");
  }
  int scratch = -1, at_target = -1;
  // What this process last left or saw of each inode it keeps open (the library's OpenInode):
  // after an exchange the old target's becomes the scratch's, with no system call.
  struct stat scratch_status = {0}, at_target_status = {0};

  sleep_until(atoll(argv[3]));
  for (long i = 0; i < times; i++) {
    if (lock_file(lock, F_WRLCK) != 0) die("lock");
    struct stat s, at_name;
    if (fstat(lock, &s) != 0 || s.st_nlink != 1) die("lock file");
    // Still the lock file at its name (as the library checks on every lock): a directory on the
    // path swapped for another leaves the kept one linked in the old directory.
    if (fstatat(AT_FDCWD, lock_path, &at_name, AT_SYMLINK_NOFOLLOW) != 0 || at_name.st_ino != s.st_ino
        || at_name.st_dev != s.st_dev) die("lock file moved");
    uint64_t sequence = __atomic_load_n(&page[0], __ATOMIC_ACQUIRE);
    struct stat t;
    int has_target = fstatat(anchor, name, &t, AT_SYMLINK_NOFOLLOW) == 0;
    long value = 0;
    uint64_t now[7];
    if (has_target) identity(now, &t);
    if (has_target && page[1] == sequence && page[9] == 2 && memcmp(&page[2], now, sizeof now) == 0) {
      char text[64] = {0};
      size_t length = page[10] < 63 ? page[10] : 63;
      memcpy(text, (char *)page + CONTENTS, length);
      value = atol(text);
    } else if (has_target) {
      int fd = openat(anchor, name, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
      if (fd < 0) die("open target");
      char text[64] = {0};
      if (pread(fd, text, 63, 0) < 0) die("read");
      value = atol(text);
      if (at_target >= 0) close(at_target);
      at_target = fd;
      at_target_status = t;
    }
    value += 1;
    char text[64];
    int length = snprintf(text, sizeof text, "%ld", value);
    // The scratch inode: ours, still at its name?
    struct stat n;
    int present = fstatat(anchor, scratch_name, &n, AT_SYMLINK_NOFOLLOW) == 0;
    if (present && n.st_nlink == 1 && scratch >= 0 && n.st_ino == scratch_status.st_ino) {
      scratch_status.st_size = n.st_size;
    } else if (present && n.st_nlink == 1 && at_target >= 0 && n.st_ino == at_target_status.st_ino) {
      // As the library: another process's exchanges moved the kept inodes between the names.
      // The one kept as the target is the scratch now; the one kept as the scratch stays open as
      // the target if it is there (closed there, it would tell every watcher IN_CLOSE_WRITE).
      int former = scratch;
      struct stat former_status = scratch_status;
      scratch = at_target;
      scratch_status = n;
      at_target = -1;
      if (former >= 0 && has_target && former_status.st_ino == t.st_ino) {
        at_target = former;
        at_target_status = t;
      } else if (former >= 0) {
        close(former);
      }
    } else {
      if (scratch >= 0 && has_target && scratch_status.st_ino == t.st_ino) {
        if (at_target >= 0) close(at_target);
        at_target = scratch;
        at_target_status = t;
      } else if (scratch >= 0) {
        close(scratch);
      }
      scratch = openat(anchor, scratch_name, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
      if (scratch < 0) die("open scratch");
      if (fstat(scratch, &scratch_status) != 0) die("fstat scratch");
    }
    // A durable write opens the directory before it begins, and flushes it once the page
    // describes the write.
    int d = -1;
    if (durable && (d = openat(anchor, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) die("open directory");
    // A writer that died mid-write left the sequence odd: carry on past it, as the library does.
    uint64_t busy = (sequence & 1) ? sequence + 2 : sequence | 1;
    __atomic_store_n(&page[0], busy, __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_RELEASE);
    // The announcement (the library's CoordinationPage.announce): the contents and the inode
    // about to be exchanged into place.
    memcpy((char *)page + CONTENTS, text, length);
    page[12] = scratch_status.st_dev;
    page[13] = scratch_status.st_ino;
    page[14] = length;
    __atomic_store_n(&page[11], busy + 1, __ATOMIC_RELEASE);
    if (pwrite(scratch, text, length, 0) != length) die("pwrite");
    if (scratch_status.st_size != length) {
      if (ftruncate(scratch, length) != 0) die("ftruncate");
      scratch_status.st_size = length;
    }
    if (durable && fsync(scratch) != 0) die("fsync");
    // The target first, as the library names them: its events then come first (see
    // FileReplacement.exchangeIntoPlace).
    int exchanged = renameat2(anchor, name, anchor, scratch_name, RENAME_EXCHANGE) == 0;
    if (!exchanged) {
      if (errno != ENOENT || renameat(anchor, scratch_name, anchor, name) != 0) die("rename");
    }
    int written = scratch;
    struct stat w;
    if (fstat(written, &w) != 0) die("fstat written");
    if (exchanged) {
      scratch = at_target;
      scratch_status = at_target_status;
    } else {
      if (at_target >= 0) close(at_target);
      scratch = -1;
    }
    at_target = written;
    at_target_status = w;
    identity(now, &w);
    memcpy(&page[2], now, sizeof now);
    // The contents are in place since the announcement.
    page[10] = length;
    page[9] = 2;
    page[1] = busy + 1;
    __atomic_store_n(&page[0], busy + 1, __ATOMIC_RELEASE);
    if (durable) {
      if (fsync(d) != 0) die("fsync directory");
      close(d);
    }
    if (lock_file(lock, F_UNLCK) != 0) die("unlock");
  }
  printf("ok %ld\n", times);
  return 0;
}
