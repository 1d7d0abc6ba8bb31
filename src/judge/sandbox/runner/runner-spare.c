/*
 * The spare: the next program's process, forked and filtered while the judge still reads the last reply, so
 * a run's start does not wait for them. A fork of the runner cost ~0.1 ms and loading the seccomp filter
 * ~0.1-0.2 ms (the kernel compiles it, and works out which calls it always allows, with interrupts off;
 * docs/benchmarks.md), each run, between the request and the program's exec.
 *
 * It is made after the runner has reset the container and written the trailer (runner.c), so it is the
 * first process after the PID counter's reset: the program gets the PID it got before. It starts its own
 * session and loads the filter, then waits for a request's length on its go pipe and reads the request
 * itself from the runner's request buffer (memory shared with it). It joins the run's cgroup and takes its
 * limits while the runner lays out /work (on the other CPU), then execs when the runner says /work is ready.
 * No program runs beside it: it is made after a run's processes are gone and becomes the next program, and
 * an interactive run (runner-pair.c, which starts its processes its own way) drops it first. Should it be
 * gone when a run comes, the run forks as before.
 */
#include "runner.h"
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static struct {
  pid_t pid;
  /* The runner's ends: the go pipe's write end, the output sockets' and the set-up pipe's read ends. */
  int go, out, err, setup;
} spare = { -1, -1, -1, -1, -1 };

static void close_ends(void) {
  int *ends[] = { &spare.go, &spare.out, &spare.err, &spare.setup };
  for (size_t i = 0; i < sizeof ends / sizeof *ends; i++) {
    if (*ends[i] >= 0) close(*ends[i]);
    *ends[i] = -1;
  }
}

/* In the spare: takes the request and sets up for it while the runner lays out /work, then execs once the
   runner says /work is ready (never returns). */
static void wait_for_go(int go, char *body, const char *cgroup_fds, int out, int err) {
  uint32_t length;
  struct request r;
  char laid = 0;
  if (read_full(go, &length, 4) != 1 || length == 0 || parse_request(body, length, &r) != 0) _exit(0);
  struct launch program = program_of(&r, cgroup_fds, out, err);
  launch_limits(&program);
  if (read_full(go, &laid, 1) != 1 || !laid) _exit(0);
  if (chdir("/work") != 0) setup_failed('d');
  program.in = program_input(&r);
  launch_exec(&program);
}

int spare_make(char *body, const char *cgroup_fds) {
  spare_drop();
  int go[2], out[2] = { -1, -1 }, err[2] = { -1, -1 }, setup[2];
  if (pipe2(go, O_CLOEXEC) != 0) return -1;
  if (stream_pair(out) != 0 || stream_pair(err) != 0 || pipe2(setup, O_CLOEXEC) != 0) {
    int ends[] = { go[0], go[1], out[0], out[1], err[0], err[1] };
    for (size_t i = 0; i < sizeof ends / sizeof *ends; i++)
      if (ends[i] >= 0) close(ends[i]);
    return -1;
  }
  pid_t pid = fork();
  if (pid == 0) {
    close(go[1]);
    close(out[0]);
    close(err[0]);
    close(setup[0]);
    setup_pipe = setup[1];
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    /* A session of its own (launch() says why), and the filter, before the request comes. */
    if (setsid() < 0) setup_failed('n');
    if (install_seccomp() != 0) setup_failed('s');
    wait_for_go(go[0], body, cgroup_fds, out[1], err[1]);
  }
  close(go[0]);
  close(out[1]);
  close(err[1]);
  close(setup[1]);
  spare = (typeof(spare)){ pid, go[1], out[0], err[0], setup[0] };
  if (pid < 0) close_ends();
  return pid < 0 ? -1 : 0;
}

/* Hands the spare the request of `length` bytes: its PID, and the runner's ends of its output sockets and
   set-up pipe; -1 when there is no spare (or it has gone: then it is reaped). It sets up meanwhile, and
   waits for spare_go. */
pid_t spare_start(uint32_t length, int *out, int *err, int *setup) {
  if (spare.pid < 0) return -1;
  pid_t pid = spare.pid;
  if (write_full(spare.go, &length, 4) != 0) {
    spare_drop();
    return -1;
  }
  *out = spare.out;
  *err = spare.err;
  *setup = spare.setup;
  spare.pid = spare.out = spare.err = spare.setup = -1;
  return pid;
}

/* Tells the started spare whether /work is laid out: it execs, or ends. */
void spare_go(int laid) {
  char byte = (char)(laid != 0);
  if (write_full(spare.go, &byte, 1) != 0) {}
  close(spare.go);
  spare.go = -1;
}

/* The spare ended and reaped (before a run that starts its processes its own way). */
void spare_drop(void) {
  if (spare.pid >= 0) {
    kill(spare.pid, SIGKILL);
    waitpid(spare.pid, NULL, 0);
  }
  spare.pid = -1;
  close_ends();
}
