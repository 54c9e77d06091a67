#ifndef SHARED_STATE_C_TEST_SUPPORT_H
#define SHARED_STATE_C_TEST_SUPPORT_H

#include <signal.h>
#include <spawn.h>

// What the tests need to start child processes that inherit nothing by accident, from glibc
// functions that Swift's Glibc module leaves out (they are declared only under _GNU_SOURCE).

/// pipe2(fds, O_CLOEXEC): a pipe whose two ends no program started later inherits, created in
/// one step, so that no other thread can spawn a program between creating and flagging it.
int test_support_close_on_exec_pipe(int fds[2]);

/// posix_spawn_file_actions_addclosefrom_np(actions, lowest): the child closes every descriptor
/// from `lowest` up before it runs the program, whatever flags they carry.
int test_support_spawn_closes_from(posix_spawn_file_actions_t *actions, int lowest);

/// pthread_sigmask(SIG_SETMASK, empty, previous): the calling thread takes every signal from
/// now on, as a program's main thread does; `previous` receives the mask it had.
int test_support_unblock_all_signals(sigset_t *previous);

/// pthread_sigmask(SIG_SETMASK, mask, NULL): gives the calling thread `mask` back.
int test_support_set_signal_mask(const sigset_t *mask);

#endif
