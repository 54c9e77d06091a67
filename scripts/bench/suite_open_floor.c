// The floor for opening N app-storage keys with Int defaults: the same files made with the same
// protocol steps as SharedState, in C, with nothing else (no objects, no watcher's work beyond
// reading its events). scripts/bench/suite_open.py runs it beside ResourceProbe, on the same file
// system and in the same run, so that the two are compared under the same load.
//
//   suite_open_floor first|again SUITE N [locked]
//
// first: a new suite (SUITE must not exist): the directory is created and watched (inotify, one
//   thread reading the events, as every SharedState process does), then for each key
//   `key-I.json`: look at the name (fstatat: missing), look at the lock file's name (missing),
//   create a scratch file of this store's own (O_EXCL), write the default, fstat, close, rename
//   it to the name without replacing (RENAME_NOREPLACE), fstatat the name (its identity): one
//   inode per key. With `locked`, the protocol that takes the lock instead:
//   create and lock `.key-I.json.sharedstate-lock`, grow it to a page and map it, create the
//   scratch file, write it, rename it to the name without replacing, unlock, unmap, close: two
//   inodes per key.
// again: the suite exists: the directory is watched, then each key's file is opened, read and
//   closed (the lock file too, read-only, when there is one).
//
// Prints `floor PASS N WALL_MS CPU_MS` (CPU: the whole process, user and system).
// Build: cc -O2 -pthread -o suite_open_floor suite_open_floor.c
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now_ms(clockid_t clock) {
  struct timespec t;
  clock_gettime(clock, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static void fail(const char *what, const char *path) {
  fprintf(stderr, "suite_open_floor: %s %s: %s\n", what, path, strerror(errno));
  exit(1);
}

static void *read_events(void *argument) {
  int descriptor = *(int *)argument;
  char buffer[65536];
  for (;;) {
    ssize_t count = read(descriptor, buffer, sizeof buffer);
    if (count < 0 && errno != EINTR) return NULL;
  }
}

static void store_unlocked(const char *target, const char *lock, const char *fresh, const char *text) {
  struct stat status;
  if (fstatat(AT_FDCWD, target, &status, AT_SYMLINK_NOFOLLOW) == 0) return;
  if (fstatat(AT_FDCWD, lock, &status, AT_SYMLINK_NOFOLLOW) == 0) fail("lock file present", lock);
  int file = open(fresh, O_RDWR | O_CREAT | O_EXCL | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC, 0666);
  if (file < 0) fail("open", fresh);
  if (pwrite(file, text, strlen(text), 0) < 0) fail("pwrite", fresh);
  if (fstat(file, &status) != 0) fail("fstat", fresh);
  close(file);
  if (renameat2(AT_FDCWD, fresh, AT_FDCWD, target, RENAME_NOREPLACE) != 0) fail("renameat2", target);
  if (fstatat(AT_FDCWD, target, &status, AT_SYMLINK_NOFOLLOW) != 0) fail("fstatat", target);
}

static void store_locked(const char *target, const char *lock, const char *scratch, const char *text) {
  struct stat status;
  if (fstatat(AT_FDCWD, target, &status, AT_SYMLINK_NOFOLLOW) == 0) return;
  int locked = open(lock, O_RDWR | O_CREAT | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC, 0666);
  if (locked < 0) fail("open", lock);
  struct flock whole = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
  if (fcntl(locked, F_OFD_SETLKW, &whole) != 0) fail("lock", lock);
  if (fstat(locked, &status) != 0) fail("fstat", lock);
  if (posix_fallocate(locked, 0, 4096) != 0) fail("fallocate", lock);
  void *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, locked, 0);
  if (page == MAP_FAILED) fail("mmap", lock);
  if (fstatat(AT_FDCWD, target, &status, AT_SYMLINK_NOFOLLOW) == 0) fail("target appeared", target);
  int file = open(scratch, O_RDWR | O_CREAT | O_EXCL | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC, 0666);
  if (file < 0) fail("open", scratch);
  if (pwrite(file, text, strlen(text), 0) < 0) fail("pwrite", scratch);
  close(file);
  if (renameat2(AT_FDCWD, scratch, AT_FDCWD, target, RENAME_NOREPLACE) != 0) fail("renameat2", target);
  ((volatile unsigned long *)page)[0] += 2;
  whole.l_type = F_UNLCK;
  fcntl(locked, F_OFD_SETLK, &whole);
  munmap(page, 4096);
  close(locked);
}

static void read_key(const char *target, const char *lock) {
  char buffer[64];
  int locked = open(lock, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
  int file = open(target, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
  if (file < 0) fail("open", target);
  if (pread(file, buffer, sizeof buffer, 0) < 0) fail("pread", target);
  close(file);
  if (locked >= 0) close(locked);
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: suite_open_floor first|again SUITE N [locked]\n");
    return 2;
  }
  int first = strcmp(argv[1], "first") == 0;
  const char *suite = argv[2];
  long count = strtol(argv[3], NULL, 10);
  int locked = argc > 4 && strcmp(argv[4], "locked") == 0;
  double wall = now_ms(CLOCK_MONOTONIC), cpu = now_ms(CLOCK_PROCESS_CPUTIME_ID);
  if (first && mkdir(suite, 0777) != 0) fail("mkdir", suite);
  int watcher = inotify_init1(IN_CLOEXEC);
  if (watcher < 0 || inotify_add_watch(watcher, suite, IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO | IN_CREATE | IN_DELETE) < 0)
    fail("inotify", suite);
  pthread_t reader;
  pthread_create(&reader, NULL, read_events, &watcher);
  size_t room = strlen(suite) + 64;
  char *target = malloc(room), *lock = malloc(room), *scratch = malloc(room), *fresh = malloc(room);
  for (long i = 0; i < count; i++) {
    snprintf(target, room, "%s/key-%ld.json", suite, i);
    snprintf(lock, room, "%s/.key-%ld.json.sharedstate-lock", suite, i);
    snprintf(scratch, room, "%s/.key-%ld.json.sharedstate-scratch", suite, i);
    snprintf(fresh, room, "%s/.key-%ld.json.new-%d-%ld.sharedstate-scratch", suite, i, (int)getpid(), i + 1);
    char text[32];
    snprintf(text, sizeof text, "%ld\n", i);
    if (!first) {
      read_key(target, lock);
    } else if (locked) {
      store_locked(target, lock, scratch, text);
    } else {
      store_unlocked(target, lock, fresh, text);
    }
  }
  wall = now_ms(CLOCK_MONOTONIC) - wall;
  cpu = now_ms(CLOCK_PROCESS_CPUTIME_ID) - cpu;
  printf("floor %s %ld %.1f %.1f\n", first ? (locked ? "first-locked" : "first") : "again", count, wall, cpu);
  return 0;
}
