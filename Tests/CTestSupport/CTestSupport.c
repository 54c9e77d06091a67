#define _GNU_SOURCE
#include "CTestSupport.h"

#include <fcntl.h>
#include <unistd.h>

int test_support_close_on_exec_pipe(int fds[2]) {
  return pipe2(fds, O_CLOEXEC);
}

int test_support_spawn_closes_from(posix_spawn_file_actions_t *actions, int lowest) {
  return posix_spawn_file_actions_addclosefrom_np(actions, lowest);
}
