#ifndef SHARED_STATE_C_TEST_SUPPORT_H
#define SHARED_STATE_C_TEST_SUPPORT_H

#include <spawn.h>

// What the tests need to start child processes that inherit nothing by accident, from glibc
// functions that Swift's Glibc module leaves out (they are declared only under _GNU_SOURCE).

/// pipe2(fds, O_CLOEXEC): a pipe whose two ends no program started later inherits, created in
/// one step, so that no other thread can spawn a program between creating and flagging it.
int test_support_close_on_exec_pipe(int fds[2]);

/// posix_spawn_file_actions_addclosefrom_np(actions, lowest): the child closes every descriptor
/// from `lowest` up before it runs the program, whatever flags they carry.
int test_support_spawn_closes_from(posix_spawn_file_actions_t *actions, int lowest);

#endif
