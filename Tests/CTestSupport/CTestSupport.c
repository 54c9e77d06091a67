#define _GNU_SOURCE
#include "CTestSupport.h"

#include <fcntl.h>
#include <signal.h>
#include <pthread.h>
#include <unistd.h>

int test_support_close_on_exec_pipe(int fds[2]) {
  return pipe2(fds, O_CLOEXEC);
}

int test_support_spawn_closes_from(posix_spawn_file_actions_t *actions, int lowest) {
  return posix_spawn_file_actions_addclosefrom_np(actions, lowest);
}

int test_support_unblock_all_signals(sigset_t *previous) {
  sigset_t none;
  sigemptyset(&none);
  return pthread_sigmask(SIG_SETMASK, &none, previous);
}

int test_support_set_signal_mask(const sigset_t *mask) {
  return pthread_sigmask(SIG_SETMASK, mask, NULL);
}
