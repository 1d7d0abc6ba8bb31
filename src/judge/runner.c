/*
 * The judge's in-sandbox runner: bubblewrap's PID 1 for as long as its judge slot's container lives. It
 * runs programs one at a time, each in a fork of itself, and answers every request with how the program
 * ended, its wall clock, and its output.
 *
 *   runner CGROUP_FDS TMP_BYTES  (CGROUP_FDS: "5,6,7" or "-"; TMP_BYTES: the size of /tmp and /dev/shm)
 *
 * fd 0 brings requests, fd 1 takes replies, fd 2 is for the runner's own complaints. A request is a
 * little-endian u32 length and that many bytes of NUL-terminated fields:
 *
 *   WALL_MS CPU_MS STACK_KB FILE_BYTES PROCESSES KEEP_STDOUT KEEP_STDERR STDIN PROGRAM [ARG...]
 *
 * or, for an interactive case, the interactor's fields and then those (runner-pair.c has the protocol):
 *
 *   pair CPU_MS MEMORY_KB DIR ARGC INTERACTOR [ARG...]  WALL_MS CPU_MS ...
 *
 * A reply is a u32 length and a JSON object, then the kept stdout and the kept stderr (their lengths are
 * in the JSON). The program's output reaches the runner through pipes, so it never lands where the
 * program could rewrite it; past FILE_BYTES the program is stopped.
 *
 * No run leaves anything for the next one (README, "The container and its reset rules"):
 * - /tmp and /dev/shm are tmpfs of the runner's: one a run touched (an entry, or a changed ctime: mode,
 *   extended attributes, ACL) is unmounted and mounted anew, no tree to walk; / and /dev are read-only;
 * - SysV IPC objects (the container's IPC namespace) are removed; POSIX message queues are refused;
 * - /work is the judge's to empty and fill before each run (on the host);
 * - every process the program started is killed when it ends (the runner is alone in its PID
 *   namespace), and every one is reaped before the reply;
 * - the program starts from the runner's own pristine state (environment, signal dispositions,
 *   limits), which it cannot reach: the runner is not dumpable, deaf to its signals as PID 1, and the
 *   seccomp filter refuses to let a program change another process's limits, priority or CPUs. The
 *   runner checks that state after every run anyway and says "clean": false when anything differs or
 *   a process is left, and the judge throws the container away.
 *
 * The runner keeps CAP_SYS_ADMIN of its own user namespace (bwrap --cap-add) for those mounts and for an
 * interactive case's namespaces (runner-pair.c); no program has it: each fork drops every capability
 * before exec.
 *
 * CGROUP_FDS are cgroup.procs files the judge opened as root: the program joins its slot's run cgroup
 * through them just before exec, so CPU and memory are counted by the kernel for the program's whole
 * process tree, and read by the judge outside the sandbox.
 */
#include "runner.h"
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_REQUEST (1 << 20)
#define MAX_FIELDS 4096

/* Runs one request and writes its reply; returns whether the container is still fit for another run. */
static int serve(char **f, int sigfd, const char *cgroup_fds, const struct pristine *before) {
  long long wall_ms = atoll(f[F_WALL]), file_bytes = atoll(f[F_FILE]);
  struct stream out, err;
  int out_pipe[2], err_pipe[2], setup[2];
  size_t keep_out = (size_t)atoll(f[F_KEEP_OUT]), keep_err = (size_t)atoll(f[F_KEEP_ERR]);
  if (stream_open(&out, out_pipe, keep_out) || stream_open(&err, err_pipe, keep_err) || pipe2(setup, O_CLOEXEC))
    return 0;
  setup_pipe = setup[1];

  long long started = now_ms();
  pid_t pid = fork();
  if (pid < 0) return 0;
  if (pid == 0) {
    const char *stdin_path = f[F_STDIN];
    int in = strcmp(stdin_path, "-") == 0 ? open("/dev/null", O_RDONLY) : open(stdin_path, O_RDONLY | O_NOFOLLOW);
    struct launch program = {
      .argv = f + F_PROGRAM, .in = in, .out = out_pipe[1], .err = err_pipe[1],
      .cpu_ms = atoll(f[F_CPU]), .stack_kb = atoll(f[F_STACK]), .file_bytes = file_bytes,
      .processes = atoll(f[F_PROCS]), .address_kb = 0, .cgroup_fds = cgroup_fds, .dir = NULL,
    };
    launch(&program);
  }
  close(out_pipe[1]);
  close(err_pipe[1]);
  close(setup[1]);

  /* Woken by output, by a child's end (SIGCHLD) or at the wall-clock deadline. */
  struct outcome o = { 0 };
  while (!o.ended) {
    long long left = wall_ms - (now_ms() - started);
    if (left < 0) { o.wall_exceeded = 1; break; }
    struct pollfd fds[3] = { { sigfd, POLLIN, 0 }, { out.fd, POLLIN, 0 }, { err.fd, POLLIN, 0 } };
    if (poll(fds, 3, left > 1000 ? 1000 : (int)left + 1) < 0 && errno != EINTR) break;
    if (out.fd >= 0 && fds[1].revents && !pump(&out, file_bytes, &o.exceeded)) { close(out.fd); out.fd = -1; }
    if (err.fd >= 0 && fds[2].revents && !pump(&err, file_bytes, &o.exceeded)) { close(err.fd); err.fd = -1; }
    if (o.exceeded) break;
    if (fds[0].revents) {
      struct signalfd_siginfo info;
      while (read(sigfd, &info, sizeof info) == sizeof info) {}
    }
    int st;
    pid_t done;
    while ((done = waitpid(-1, &st, WNOHANG)) > 0)
      if (done == pid) { o.status = st; o.ended = 1; }
  }
  o.wall = now_ms() - started;
  kill_and_reap(pid, &o);
  drain(&out, file_bytes, &o.exceeded);
  drain(&err, file_bytes, &o.exceeded);
  o.stage = read_stage(setup[0]);
  return reply(&o, &out, &err, "", NULL, before);
}

/* The command line (the cgroup descriptors, the size) reads as "/.runner" alone in /proc/1/cmdline. */
static char *blank_argument(char *argument) {
  char *copy = strdup(argument);
  memset(argument, 0, strlen(argument));
  return copy;
}

/* SIGCHLD as a descriptor: the wait wakes for the program's end and for orphans to reap. */
static int child_signals(void) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGCHLD);
  if (sigprocmask(SIG_BLOCK, &set, NULL) != 0) return -1;
  return signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
}

/* What no run may write: the container's root and /dev (their tmpfs would carry files between runs). The
   mounts are bubblewrap's, owned by a user namespace outside the runner's; they are remounted in a mount
   namespace of the runner's own, keeping the flags the kernel locked on them. */
static int read_only(const char *where) {
  return mount(NULL, where, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV, NULL);
}

int main(int argc, char **argv) {
  /* First of all: nothing running as this uid may inspect or steal from this process. */
  if (prctl(PR_SET_DUMPABLE, 0) != 0) return 119;
  if (argc != 3) {
    fprintf(stderr, "usage: runner CGROUP_FDS TMP_BYTES\n");
    return 120;
  }
  char *cgroup_fds = blank_argument(argv[1]);
  tmp_bytes = atoll(argv[2]);
  free(blank_argument(argv[2]));
  int sigfd = child_signals();
  if (!cgroup_fds || sigfd < 0) return 124;
  if (build_seccomp() != 0) {
    fprintf(stderr, "runner: cannot build the seccomp filter\n");
    return 122;
  }
  if (unshare(CLONE_NEWNS) != 0 || read_only("/") != 0 || read_only("/dev") != 0 || fresh_tmpfs(0) != 0 ||
      fresh_tmpfs(1) != 0) {
    fprintf(stderr, "runner: cannot set up the container's mounts: %s\n", strerror(errno));
    return 121;
  }
  fcntl(0, F_SETFD, FD_CLOEXEC);
  fcntl(1, F_SETFD, FD_CLOEXEC);
  struct pristine before;
  observe(&before);

  char *request = malloc(MAX_REQUEST + 1);
  char **fields = calloc(MAX_FIELDS + 1, sizeof *fields);
  if (!request || !fields) return 123;
  for (;;) {
    uint32_t length;
    int got = read_full(0, &length, 4);
    if (got == 0) return 0; /* the judge closed the container */
    if (got < 0 || length == 0 || length > MAX_REQUEST || read_full(0, request, length) != 1) return 125;
    if (request[length - 1] != '\0') return 126;
    int count = 0;
    for (uint32_t at = 0; at < length && count < MAX_FIELDS; at += (uint32_t)strlen(request + at) + 1)
      fields[count++] = request + at;
    fields[count] = NULL;
    /* A pair request: the interactor's fields, then the program's request (runner-pair.c). */
    char **peer = NULL, **run = fields;
    if (strcmp(fields[0], "pair") == 0) {
      if (count < 6) return 127;
      int argc_peer = atoi(fields[4]);
      if (argc_peer < 1 || 5 + argc_peer >= count) return 127;
      peer = fields;
      run = fields + 5 + argc_peer;
      count -= 5 + argc_peer;
    }
    if (count <= F_PROGRAM) return 127;
    if (!(peer ? serve_pair(peer, run, sigfd, cgroup_fds, &before) : serve(run, sigfd, cgroup_fds, &before))) return 0;
  }
}
