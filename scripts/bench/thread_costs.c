// A preloaded library for scripts/bench/write_cost.sh: counts the calls of malloc, calloc,
// realloc, posix_memalign, aligned_alloc and memalign that each thread makes, and when the
// program exits prints one line per thread still alive to standard error:
//
//   thread-cost <tid> <user-ticks> <cpu-ns> <allocations> <name> <main|thread>
//
// user-ticks is the thread's user time from /proc/self/task/TID/stat (in clock ticks), cpu-ns its
// time on a CPU from /proc/self/task/TID/schedstat; the last field says whether it is the
// process's main thread (a C program's threads may all bear its name). Threads that ended before
// the exit are not listed.
//
// cc -O2 -shared -fPIC -o thread_costs.so thread_costs.c
#define _GNU_SOURCE
#include <dirent.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);

#define SLOTS 4096
static struct {
  _Atomic long tid;
  _Atomic unsigned long allocations;
} slots[SLOTS];
static _Atomic int used;
static __thread int slot = -1;

static void count(void) {
  if (slot < 0) {
    int taken = atomic_fetch_add(&used, 1);
    if (taken >= SLOTS) return;
    slot = taken;
    atomic_store(&slots[slot].tid, (long)syscall(SYS_gettid));
  }
  atomic_fetch_add_explicit(&slots[slot].allocations, 1, memory_order_relaxed);
}

void *malloc(size_t size) { count(); return __libc_malloc(size); }
void *calloc(size_t n, size_t size) { count(); return __libc_calloc(n, size); }
void *realloc(void *p, size_t size) { count(); return __libc_realloc(p, size); }
void *memalign(size_t alignment, size_t size) { count(); return __libc_memalign(alignment, size); }
void *aligned_alloc(size_t alignment, size_t size) { count(); return __libc_memalign(alignment, size); }
int posix_memalign(void **out, size_t alignment, size_t size) {
  count();
  void *p = __libc_memalign(alignment, size);
  if (!p) return 12;  // ENOMEM
  *out = p;
  return 0;
}

static unsigned long allocations_of(long tid) {
  int n = atomic_load(&used);
  unsigned long total = 0;
  for (int i = 0; i < n && i < SLOTS; i++)
    if (atomic_load(&slots[i].tid) == tid) total += atomic_load(&slots[i].allocations);
  return total;
}

__attribute__((destructor)) static void report(void) {
  DIR *tasks = opendir("/proc/self/task");
  if (!tasks) return;
  struct dirent *entry;
  while ((entry = readdir(tasks))) {
    if (entry->d_name[0] == '.') continue;
    char path[64], text[1024] = {0}, name[64] = "?";
    unsigned long long user = 0, cpu = 0;
    snprintf(path, sizeof path, "/proc/self/task/%s/stat", entry->d_name);
    FILE *f = fopen(path, "r");
    if (f) {
      if (fgets(text, sizeof text, f)) {
        char *open = strchr(text, '('), *close = strrchr(text, ')');
        if (open && close && close > open) {
          snprintf(name, sizeof name, "%.*s", (int)(close - open - 1), open + 1);
          for (char *c = name; *c; c++) if (*c == ' ') *c = '_';
          // After ')': state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt utime
          sscanf(close + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu", &user);
        }
      }
      fclose(f);
    }
    snprintf(path, sizeof path, "/proc/self/task/%s/schedstat", entry->d_name);
    f = fopen(path, "r");
    if (f) {
      if (fscanf(f, "%llu", &cpu) != 1) cpu = 0;
      fclose(f);
    }
    long tid = atol(entry->d_name);
    fprintf(stderr, "thread-cost %ld %llu %llu %lu %s %s\n", tid, user, cpu, allocations_of(tid), name,
            tid == (long)getpid() ? "main" : "thread");
  }
  closedir(tasks);
}
