/*
 * The spare: the next program's process, made and filtered while the judge still reads the last reply, so
 * a run's start does not wait for them. Forking the runner cost ~0.1 ms and loading the seccomp filter
 * ~0.1-0.2 ms (the kernel compiles it, and works out which calls it always allows, with interrupts off;
 * docs/benchmarks.md), each run, between the request and the program's exec.
 *
 * It is made after the runner has reset the container and written the trailer (runner.c), so it is the
 * first process after the PID counter's reset: the program gets the PID it got before. It starts its own
 * session, under the filter it got from the maker (below), then waits on its go pipe for the request the
 * runner has read. It joins the
 * run's cgroup and takes its limits while the runner lays out /work (on the other CPU), then execs when the
 * runner says /work is ready. No program runs beside it: it is made after a run's processes are gone and
 * becomes the next program, and an interactive run (runner-pair.c, which starts its processes its own way)
 * drops it first. Should it be gone when a run comes, the run forks as before.
 *
 * It shares the runner's memory until its exec (CLONE_VM), as posix_spawn's child does: a fork copied the
 * runner's page tables, then both took copy-on-write faults and the exec tore the copy down, ~0.1 ms of CPU
 * a run (docs/benchmarks.md). So from its clone to its exec the spare writes nothing of the runner's: it
 * runs on a stack of its own, reads the request the runner parsed, allocates nothing (no malloc, no strtok)
 * and calls only system calls' wrappers, which write errno (its cloning thread's, below) only when they fail,
 * and then it ends. What it
 * reads, the runner leaves alone while it lives: the request until the run is reaped, `handed` until the
 * next spare, which is made only once this one has exec'd or been reaped.
 *
 * The maker: a thread of the runner that loaded the filter once, when the container started, and clones each
 * spare, which inherits it (a filter is a thread's own, passed on at clone), so no spare loads it again (~70
 * µs of CPU a run). It is idle (blocked in a read) while a spare lives, so the spare, which runs on its
 * thread's storage (errno, glibc's cancellation word), races no one for it. It cannot be killed, stopped or
 * traced from the runs (the init's threads are unkillable from its namespace; the filter; no dumpable
 * memory), and a signal sent to it is dropped, as one sent to the init is, except SIGCHLD, which it blocks
 * like the runner and takes before each spare. A spare lives in the namespaces of the thread that clones it:
 * when the runner makes a new IPC namespace (runner-sysv.c), the maker joins it (setns, which the filter
 * allows for an IPC namespace only and which needs a capability no program has). It is made before the
 * runner remembers the PID counter, so its thread's ID is below every program's, and it lives as long as the
 * container: the slot uid's threads count in a program's RLIMIT_NPROC, which a spare raises by one for it.
 *
 * A spare shares the runner's memory, so the kernel's OOM killer, should the run's group run out before the
 * exec, would kill the runner with it: a run under SPARE_MIN_KB of memory forks instead (runner.c).
 */
#include "runner.h"
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
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

/* The spare's stack, and what it is handed when it is made (its ends of the go pipe and output sockets). */
#define SPARE_STACK (256 << 10)
static char *stack;
static struct {
  int go, out, err;
  const char *cgroup_fds;
} handed;

/* In the spare: waits for the request, sets up for it while the runner lays out /work, then execs once the
   runner says /work is ready (never returns). */
static int spare_main(void *unused) {
  (void)unused;
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, NULL);
  /* A session of its own (launch() says why); the filter is the maker's. */
  if (setsid() < 0) setup_failed('n');
  const struct request *r = NULL;
  char laid = 0;
  if (read_full(handed.go, &r, sizeof r) != 1 || !r) _exit(0);
  struct launch program = program_of(r, handed.cgroup_fds, handed.out, handed.err);
  launch_limits(&program);
  if (read_full(handed.go, &laid, 1) != 1 || !laid) _exit(0);
  if (chdir("/work") != 0) setup_failed('d');
  program.in = program_input(r);
  launch_exec(&program);
}

/* The maker's requests (a byte) and its answers (an int); -1 when there is none. What it is asked:
   'm' make a spare (the answer: its PID, or -1), 'i' move to the IPC namespace of `ipc_fd` (0, or -1). */
static int maker_ask = -1, maker_told = -1, ipc_fd = -1;

/* The maker thread: SIGCHLD blocked, as in the runner's other thread (whose signalfd takes it), and every
   other signal open, so that the kernel drops one sent to it as to the init; its filter on. */
static void *maker_main(void *pipes) {
  int ask = ((int *)pipes)[0], told = ((int *)pipes)[1];
  sigset_t chld;
  sigemptyset(&chld);
  sigaddset(&chld, SIGCHLD);
  pthread_sigmask(SIG_SETMASK, &chld, NULL);
  int filtered = install_seccomp() == 0;
  char byte;
  while (read_full(ask, &byte, 1) == 1) {
    int answer = -1;
    /* A SIGCHLD a run sent this thread alone would stay queued for the runs after it (each counts in the
       uid's signal quota, /proc's SigQ): taken here, before every spare. No child of the runner is alive
       now, so none is lost that the runner waits for. */
    struct timespec now = { 0, 0 };
    while (sigtimedwait(&chld, NULL, &now) > 0) {}
    if (byte == 'm' && filtered) answer = clone(spare_main, stack + SPARE_STACK, CLONE_VM | SIGCHLD, NULL);
    if (byte == 'i') answer = setns(ipc_fd, CLONE_NEWIPC);
    if (write_full(told, &answer, sizeof answer) != 0) break;
  }
  close(ask);
  close(told);
  return NULL;
}

static int spare_stack(void) {
  if (stack) return 0;
  /* Its lowest page unmapped: an overflow faults rather than writing the runner's memory below it. */
  char *map = mmap(NULL, SPARE_STACK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
  if (map == MAP_FAILED) return -1;
  if (mprotect(map, 4096, PROT_NONE) != 0) {
    munmap(map, SPARE_STACK);
    return -1;
  }
  stack = map;
  return 0;
}

int maker_start(void) {
  static int pipes[2];
  int ask[2], told[2];
  if (spare_stack() != 0 || pipe2(ask, O_CLOEXEC) != 0) return -1;
  if (pipe2(told, O_CLOEXEC) != 0) {
    close(ask[0]);
    close(ask[1]);
    return -1;
  }
  pipes[0] = ask[0];
  pipes[1] = told[1];
  pthread_attr_t attr;
  pthread_t thread;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 64 << 10);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  int made = pthread_create(&thread, &attr, maker_main, pipes);
  pthread_attr_destroy(&attr);
  if (made != 0) {
    int ends[] = { ask[0], ask[1], told[0], told[1] };
    for (int i = 0; i < 4; i++) close(ends[i]);
    return -1;
  }
  maker_ask = ask[1];
  maker_told = told[0];
  return 0;
}

int maker_tasks(void) {
  return maker_ask >= 0;
}

/* Asks the maker; -2 when there is none, else its answer. */
static int ask_maker(char what) {
  int answer = -1;
  if (maker_ask < 0) return -2;
  if (write_full(maker_ask, &what, 1) != 0 || read_full(maker_told, &answer, sizeof answer) != 1) return -1;
  return answer;
}

/* After the runner made a new IPC namespace: the maker follows it (0), or -1 (the container goes). */
int maker_follow_ipc(void) {
  if (maker_ask < 0) return 0;
  ipc_fd = open("/proc/thread-self/ns/ipc", O_RDONLY | O_CLOEXEC);
  int moved = ipc_fd < 0 ? -1 : ask_maker('i');
  if (ipc_fd >= 0) close(ipc_fd);
  ipc_fd = -1;
  return moved == 0 ? 0 : -1;
}

int spare_make(const char *cgroup_fds) {
  spare_drop();
  if (spare_stack() != 0) return -1;
  int go[2], out[2] = { -1, -1 }, err[2] = { -1, -1 }, setup[2];
  if (pipe2(go, O_CLOEXEC) != 0) return -1;
  if (stream_pair(out) != 0 || stream_pair(err) != 0 || pipe2(setup, O_CLOEXEC) != 0) {
    int ends[] = { go[0], go[1], out[0], out[1], err[0], err[1] };
    for (size_t i = 0; i < sizeof ends / sizeof *ends; i++)
      if (ends[i] >= 0) close(ends[i]);
    return -1;
  }
  /* Set here, not in the spare, whose write would be the runner's. No other process is made while the spare
     waits: a run forks only once it is gone (runner.c, runner-pair.c). */
  setup_pipe = setup[1];
  handed.go = go[0];
  handed.out = out[1];
  handed.err = err[1];
  handed.cgroup_fds = cgroup_fds;
  /* Its descriptor table is a copy (no CLONE_FILES) holding the runner's ends too; all close at its exec.
     Without a maker there is no spare, and each run forks once its request is read (start_now): a spare of
     this thread's would share its errno while it lays out /work, and a fork's copy would not see the request
     it is handed. */
  pid_t pid = ask_maker('m');
  close(go[0]);
  close(out[1]);
  close(err[1]);
  close(setup[1]);
  spare = (typeof(spare)){ pid, go[1], out[0], err[0], setup[0] };
  if (pid < 0) close_ends();
  return pid < 0 ? -1 : 0;
}

/* Hands the spare the parsed request, left as it is until the run is reaped: its PID, and the runner's ends
   of its output sockets and set-up pipe; -1 when there is no spare (or it has gone: then it is reaped). It
   sets up meanwhile, and waits for spare_go. */
pid_t spare_start(const struct request *r, int *out, int *err, int *setup) {
  if (spare.pid < 0) return -1;
  pid_t pid = spare.pid;
  if (write_full(spare.go, &r, sizeof r) != 0) {
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
