/*
 * The judge's in-sandbox runner: bubblewrap's PID 1 for as long as its judge slot's container lives. It
 * runs programs one at a time and answers every request with how the program ended, its wall clock, its
 * output and the files asked for.
 *
 *   runner CGROUP_FDS TMP_BYTES  (CGROUP_FDS: "5,6,7" or "-"; TMP_BYTES: the size of /work, /tmp and /dev/shm)
 *
 * fd 0 brings requests, fd 1 takes replies, fd 2 is for the runner's own complaints. A request is a
 * little-endian u32 length and that many bytes of NUL-terminated fields (runner-request.c reads them):
 *
 *   WALL_MS CPU_MS STACK_KB FILE_BYTES PROCESSES KEEP_STDOUT KEEP_STDERR STDIN
 *   ENTRIES [HOW STAGE PATH MODE]...  TAKE_MAX TAKES [PATH]...  PROGRAM [ARG...]
 *
 * ENTRIES lay out /work from the judge's stage (runner-work.c: HOW is b, c or d); TAKES name the files to
 * read back after the run, "*" for every regular file. An interactive case puts its interactor's fields
 * first (runner-pair.c has the protocol):
 *
 *   pair CPU_MS MEMORY_KB DIR ARGC INTERACTOR [ARG...]  WALL_MS CPU_MS ...
 *
 * A reply is a u32 length and a JSON object, then the kept stdout and stderr (their lengths are in the
 * JSON), the files read back, and last a trailer (a u32 length and a JSON object: whether the container is
 * clean). The program's output reaches the runner through sockets, so it never lands where the program
 * could rewrite it; past FILE_BYTES the program is stopped.
 *
 * No run leaves anything for the next one (docs/judge.md "The container and its reset rules"):
 * - /work, /tmp and /dev/shm are each a fresh tmpfs for every run, laid on the last run's, which is covered
 *   when it holds nothing and unmounted before the trailer when it holds anything (runner-layers.c); / and
 *   /dev (every mount under it) are read-only, and so are /proc/sys and /proc/pressure; nothing is walked;
 * - each program is a session of its own (its own autogroup), made with its filter before its request
 *   comes (runner-spare.c); the runs' init kills every process a run left and reaps them before the reply;
 *   the runs share an IPC namespace the runner made (no run may write its limits), and after a run that
 *   made a SysV object the runner removes them all and makes a new one (fresh id cursors); it writes the
 *   PID counter back (runner-reset.c);
 * - a program may open Unix sockets only (seccomp); one that outlives its run throws the container away;
 * - the program starts from the runner's own pristine state (environment, signal dispositions,
 *   limits), which it cannot reach: the runner is not dumpable, invisible to it, and the seccomp filter
 *   refuses to let a program change another process's limits, priority or CPUs. The runner checks that
 *   state after every run anyway and says "clean": false when anything differs or a process is left, and
 *   the judge throws the container away.
 *
 * The runner keeps CAP_SYS_ADMIN of its own user namespace (bwrap --cap-add) for those mounts and each
 * run's namespaces; no program has it: each process drops every capability before exec.
 *
 * CGROUP_FDS are cgroup.procs (v2) or tasks (v1) files the judge opened as root: the program joins its slot's run
 * cgroup through them just before exec, so CPU and memory are counted by the kernel for the program's whole
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
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_REQUEST (1 << 20)

/* Forks the request's program now (when there is no spare): its PID, and the runner's ends. */
static pid_t start_now(const struct request *r, const char *cgroup_fds, int *out, int *err, int *setup) {
  int out_ends[2], err_ends[2], setup_ends[2];
  if (stream_pair(out_ends) != 0) return -1;
  if (stream_pair(err_ends) != 0) {
    close(out_ends[0]);
    close(out_ends[1]);
    return -1;
  }
  if (pipe2(setup_ends, O_CLOEXEC) != 0) setup_ends[0] = setup_ends[1] = -1;
  setup_pipe = setup_ends[1];
  pid_t pid = setup_ends[0] < 0 ? -1 : fork();
  if (pid == 0) {
    if (chdir("/work") != 0) setup_failed('d');
    struct launch program = program_of(r, cgroup_fds, out_ends[1], err_ends[1]);
    program.in = program_input(r);
    launch(&program);
  }
  int *ends[] = { &out_ends[1], &err_ends[1], &setup_ends[1] };
  for (int i = 0; i < 3; i++)
    if (*ends[i] >= 0) close(*ends[i]);
  *out = out_ends[0];
  *err = err_ends[0];
  *setup = setup_ends[0];
  return pid;
}

/* Runs one request and writes its reply; returns whether the container is still fit for another run. */
static int serve(const struct request *r, int sigfd, const char *cgroup_fds,
                 const struct pristine *before) {
  struct stream out = { -1, NULL, 0, 0, 0 }, err = out;
  struct outcome o = { 0 };
  int out_end = -1, err_end = -1, setup_end = -1;
  long long started = now_ms();
  /* The spare sets up while /work is laid out; a run with less memory than a spare may need forks
     (runner-spare.c says why). */
  if (r->stack_kb < SPARE_MIN_KB) spare_drop();
  pid_t pid = spare_start(r, &out_end, &err_end, &setup_end);
  int laid = work_prepare(r) == 0;
  if (pid >= 0) spare_go(laid);
  if (!laid) {
    if (pid >= 0) kill_and_reap(pid, NULL);
    int ends[] = { out_end, err_end, setup_end };
    for (int i = 0; i < 3; i++)
      if (ends[i] >= 0) close(ends[i]);
    o.stage = 'w';
    return reply(r, &o, &out, &err, "", NULL, before);
  }
  if (pid < 0) pid = start_now(r, cgroup_fds, &out_end, &err_end, &setup_end);
  if (pid < 0 || stream_adopt(&out, out_end, r->keep_out) != 0 || stream_adopt(&err, err_end, r->keep_err) != 0)
    return 0;

  /* Woken by output, by a child's end (SIGCHLD) or at the wall-clock deadline. */
  while (!o.ended) {
    long long left = r->wall_ms - (now_ms() - started);
    if (left < 0) { o.wall_exceeded = 1; break; }
    struct pollfd fds[3] = { { sigfd, POLLIN, 0 }, { out.fd, POLLIN, 0 }, { err.fd, POLLIN, 0 } };
    if (poll(fds, 3, left > 1000 ? 1000 : (int)left + 1) < 0 && errno != EINTR) break;
    if (out.fd >= 0 && fds[1].revents && !pump(&out, r->file_bytes, &o.exceeded)) { close(out.fd); out.fd = -1; }
    if (err.fd >= 0 && fds[2].revents && !pump(&err, r->file_bytes, &o.exceeded)) { close(err.fd); err.fd = -1; }
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
  drain(&out, r->file_bytes, &o.exceeded);
  drain(&err, r->file_bytes, &o.exceeded);
  o.stage = read_stage(setup_end);
  return reply(r, &o, &out, &err, "", NULL, before);
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

/* /dev and every mount under it read-only: bubblewrap binds the host's /dev/null, zero, full, random,
   urandom and tty there, whose times a run could set (utimensat needs only write permission) and the next
   run, any other slot and the host read back; and /dev/pts/ptmx, the container's own. Writing to a device
   still works: a read-only mount refuses changes to the inode, not the device's own I/O. */
static int read_only_tree(const char *where) {
  struct mount_attr attr = { .attr_set = MOUNT_ATTR_RDONLY };
  if (syscall(SYS_mount_setattr, AT_FDCWD, where, AT_RECURSIVE, &attr, sizeof attr) == 0) return 0;
  if (errno != ENOSYS) return -1;
  /* Before Linux 5.12: each of bubblewrap's mounts in turn. */
  static const char *const binds[] = { "null", "zero", "full", "random", "urandom", "tty", "pts" };
  char path[32];
  for (size_t i = 0; i < sizeof binds / sizeof *binds; i++) {
    snprintf(path, sizeof path, "%s/%s", where, binds[i]);
    if (read_only(path) != 0 && errno != ENOENT && errno != EINVAL) return -1;
  }
  return read_only(where);
}

/* The runs' init: every program is its child, in its PID namespace, under a /proc of that namespace that
   shows a program its own processes only (hidepid: this process is not dumpable, so not even PID 1 is
   there to read). It serves every request of the container until they end. */
static int serve_all(const char *cgroup_fds) {
  int sigfd = child_signals();
  if (sigfd < 0) return 124;
  if (own_proc() != 0 || work_open() != 0 || layers_open() != 0 || chdir("/") != 0 || own_sysv() != 0) {
    fprintf(stderr, "runner: cannot set up the container's mounts: %s\n", strerror(errno));
    return 121;
  }
  /* The spares' maker, in the runs' IPC namespace and before the PID counter is remembered (runner-spare.c).
     Without one there is no spare: each run forks once its request is read. */
  if (maker_start() != 0) {}
  if (remember_pid_counter() != 0 || seal_proc() != 0) {
    fprintf(stderr, "runner: cannot set up the container's mounts: %s\n", strerror(errno));
    return 121;
  }
  fcntl(0, F_SETFD, FD_CLOEXEC);
  fcntl(1, F_SETFD, FD_CLOEXEC);
  struct pristine before;
  observe(&before);
  char *body = mmap(NULL, MAX_REQUEST + 1, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (body == MAP_FAILED) return 123;
  for (;;) {
    /* The next program's process, made while the judge reads this reply; a run without one forks. */
    spare_make(cgroup_fds);
    uint32_t length;
    int got = read_full(0, &length, 4);
    if (got == 0) return 0; /* the judge closed the container */
    if (got < 0 || length == 0 || length > MAX_REQUEST || read_full(0, body, length) != 1) return 125;
    if (body[length - 1] != '\0') return 126;
    struct request r;
    if (parse_request(body, length, &r) != 0) return 127;
    if (!(r.peer_argv ? serve_pair(&r, sigfd, cgroup_fds, &before) : serve(&r, sigfd, cgroup_fds, &before)))
      return 0;
  }
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
  if (!cgroup_fds) return 124;
  if (build_seccomp() != 0) {
    fprintf(stderr, "runner: cannot build the seccomp filter\n");
    return 122;
  }
  /* The container's mounts made private first: each run's (its /work, a keeper's /proc) stay where they are. */
  if (unshare(CLONE_NEWNS) != 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 || read_only("/") != 0 ||
      read_only_tree("/dev") != 0) {
    fprintf(stderr, "runner: cannot set up the container's mounts: %s\n", strerror(errno));
    return 121;
  }
  /* bubblewrap's PID namespace is not the runner's to mount a /proc of: the runs get one of its own. */
  pid_t init = (pid_t)syscall(SYS_clone, CLONE_NEWPID | CLONE_NEWNS | SIGCHLD, NULL, NULL, NULL, NULL);
  if (init < 0) return 128;
  if (init == 0) return serve_all(cgroup_fds);
  close(0);
  close(1);
  int st;
  while (waitpid(init, &st, 0) < 0)
    if (errno != EINTR) return 129;
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
