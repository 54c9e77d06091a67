// The SQLite side of scripts/bench.sh: increments one counter row N times, each in its own
// write transaction, the way a program would share a counter through SQLite instead.
//
// usage: sqlite_counter DATABASE TIMES START_AT_UNIX_NS [full]
//   WAL mode, synchronous=NORMAL (FULL with "full"), BEGIN IMMEDIATE; UPDATE ...; COMMIT,
//   busy timeout 60 s.
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static void sleep_until(long long deadline_ns) {
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  long long now_ns = (long long)now.tv_sec * 1000000000LL + now.tv_nsec;
  if (deadline_ns <= now_ns) return;
  long long wait = deadline_ns - now_ns;
  struct timespec pause = {wait / 1000000000LL, wait % 1000000000LL};
  nanosleep(&pause, NULL);
}

static int run(sqlite3 *db, const char *sql) {
  char *error = NULL;
  if (sqlite3_exec(db, sql, NULL, NULL, &error) != SQLITE_OK) {
    fprintf(stderr, "sqlite_counter: %s: %s\n", sql, error);
    sqlite3_free(error);
    return 0;
  }
  return 1;
}

int main(int argc, char **argv) {
  if (argc != 4 && argc != 5) {
    fprintf(stderr, "usage: sqlite_counter DATABASE TIMES START_AT_UNIX_NS [full]\n");
    return 2;
  }
  long times = atol(argv[2]);
  sqlite3 *db;
  if (sqlite3_open(argv[1], &db) != SQLITE_OK) {
    fprintf(stderr, "sqlite_counter: cannot open %s\n", argv[1]);
    return 1;
  }
  sqlite3_busy_timeout(db, 60000);
  const char *synchronous = argc == 5 ? "PRAGMA synchronous=FULL" : "PRAGMA synchronous=NORMAL";
  if (!run(db, "PRAGMA journal_mode=WAL") || !run(db, synchronous)) return 1;
  run(db, "CREATE TABLE IF NOT EXISTS counter (id INTEGER PRIMARY KEY, value INTEGER NOT NULL)");
  run(db, "INSERT OR IGNORE INTO counter (id, value) VALUES (1, 0)");

  sqlite3_stmt *begin, *update, *commit;
  sqlite3_prepare_v2(db, "BEGIN IMMEDIATE", -1, &begin, NULL);
  sqlite3_prepare_v2(db, "UPDATE counter SET value = value + 1 WHERE id = 1", -1, &update, NULL);
  sqlite3_prepare_v2(db, "COMMIT", -1, &commit, NULL);

  sleep_until(atoll(argv[3]));
  for (long i = 0; i < times; i++) {
    if (sqlite3_step(begin) != SQLITE_DONE || sqlite3_step(update) != SQLITE_DONE ||
        sqlite3_step(commit) != SQLITE_DONE) {
      fprintf(stderr, "sqlite_counter: %s\n", sqlite3_errmsg(db));
      return 1;
    }
    sqlite3_reset(begin);
    sqlite3_reset(update);
    sqlite3_reset(commit);
  }
  printf("ok %ld\n", times);
  sqlite3_finalize(begin);
  sqlite3_finalize(update);
  sqlite3_finalize(commit);
  sqlite3_close(db);
  return 0;
}
