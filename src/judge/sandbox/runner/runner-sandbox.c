/*
 * How the runner starts a process (its descriptors, limits, cgroup, capabilities, seccomp) and reads its
 * output (runner.h; runner-reset.c has what is checked and reset after a run, and the reply).
 */
#include "runner.h"
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/close_range.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

long long now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int read_full(int fd, void *buffer, size_t size) {
  for (size_t done = 0; done < size;) {
    ssize_t got = read(fd, (char *)buffer + done, size - done);
    if (got == 0) return 0;
    if (got < 0) { if (errno == EINTR) continue; return -1; }
    done += (size_t)got;
  }
  return 1;
}

int write_full(int fd, const void *buffer, size_t size) {
  for (size_t done = 0; done < size;) {
    ssize_t put = write(fd, (const char *)buffer + done, size - done);
    if (put < 0) { if (errno == EINTR) continue; return -1; }
    done += (size_t)put;
  }
  return 0;
}

/* Set-up failures in the child travel on a close-on-exec pipe, so they never pass for the program's exit code. */
int setup_pipe = -1;
void setup_failed(char stage) {
  if (write(setup_pipe, &stage, 1) < 0) {}
  _exit(127);
}

/* The stage a child failed at, or 0 (its pipe's write ends are all closed by now). */
char read_stage(int fd) {
  char stage = 0;
  if (read(fd, &stage, 1) != 1) stage = 0;
  close(fd);
  return stage;
}

static void limit(int resource, rlim_t value) {
  struct rlimit rl = { value, value };
  if (setrlimit(resource, &rl) != 0) setup_failed('l');
}

static void drop_capabilities(void) {
  struct __user_cap_header_struct header = { _LINUX_CAPABILITY_VERSION_3, 0 };
  struct __user_cap_data_struct none[2] = { { 0, 0, 0 }, { 0, 0, 0 } };
  if (syscall(SYS_capset, &header, none) != 0) setup_failed('p');
}

/* The run's cgroup joined, its limits set and every capability dropped. Joining comes first of these: from
   there on, every page and every cycle is the program's. Its own cgroup namespace then shows that group as
   "/": no path of the judge's groups. */
void launch_limits(const struct launch *l) {
  /* Read in place, allocating nothing: a spare shares the runner's memory (runner-spare.c). */
  if (l->cgroup_fds && strcmp(l->cgroup_fds, "-") != 0) {
    for (const char *at = l->cgroup_fds; *at;) {
      int fd = 0;
      while (*at >= '0' && *at <= '9') fd = fd * 10 + (*at++ - '0');
      if (write(fd, "0", 1) != 1) setup_failed('c');
      if (*at == ',') at++;
      else if (*at) setup_failed('c');
    }
    if (unshare(CLONE_NEWCGROUP) != 0) setup_failed('c');
  }
  /* Backstops per process; the verdict uses the cgroup's totals. SIGXCPU a second past the budget. */
  struct rlimit cpu = { (rlim_t)(l->cpu_ms / 1000 + 1), (rlim_t)(l->cpu_ms / 1000 + 2) };
  setrlimit(RLIMIT_CPU, &cpu);
  limit(RLIMIT_STACK, (rlim_t)l->stack_kb * 1024);
  limit(RLIMIT_FSIZE, (rlim_t)l->file_bytes);
  limit(RLIMIT_NPROC, (rlim_t)l->processes);
  limit(RLIMIT_CORE, 0);
  if (l->address_kb > 0) limit(RLIMIT_AS, (rlim_t)l->address_kb * 1024);
  drop_capabilities();
}

/* In its directory, with its descriptors, it execs; never returns. */
void launch_exec(const struct launch *l) {
  if (chdir(l->dir) != 0) setup_failed('d');
  if (l->in < 0 || dup2(l->in, 0) < 0 || dup2(l->out, 1) < 0 || dup2(l->err, 2) < 0) setup_failed('i');
  /* Everything beyond 0-2 (the requests, the replies, the cgroup files) closes at exec. */
  if (syscall(SYS_close_range, 3, ~0U, CLOSE_RANGE_CLOEXEC) != 0) setup_failed('f');
  execvp(l->argv[0], l->argv);
  setup_failed('e');
}

/* In a fork of the runner: sets the process up and execs it; never returns. */
void launch(const struct launch *l) {
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, NULL);
  if (l->ignore_sigpipe) signal(SIGPIPE, SIG_IGN);
  /* A session of its own, so an autogroup of its own: what the program writes to /proc/self/autogroup
     (its CPU weight against the machine's other sessions) ends with it, and never reaches the runner's,
     which the container's later compiles, cases and checkers would otherwise all run in. (A spare has
     its own session and its filter already: runner-spare.c.) */
  if (setsid() < 0) setup_failed('n');
  launch_limits(l);
  if (install_seccomp() != 0) setup_failed('s');
  launch_exec(l);
}

/* The request's program as launch() starts it, its output to `out` and `err`. */
struct launch program_of(const struct request *r, const char *cgroup_fds, int out, int err) {
  return (struct launch){
    .argv = r->argv, .in = -1, .out = out, .err = err, .cpu_ms = r->cpu_ms, .stack_kb = r->stack_kb,
    .file_bytes = r->file_bytes, .processes = r->processes + maker_tasks(), .address_kb = 0, .cgroup_fds = cgroup_fds,
    .dir = "/work",
  };
}

/* Its stdin: a file of /work the request names (opened beneath the program's directory), or nothing. */
int program_input(const struct request *r) {
  return strcmp(r->stdin_path, "-") == 0 ? open("/dev/null", O_RDONLY | O_CLOEXEC)
                                         : open(r->stdin_path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
}

/* In the init of a PID namespace of the runner's (the runs', or an interactive program's keeper): a /proc of
   that namespace, showing each program only the processes it may trace (hidepid): its own. The runner and
   a keeper are not dumpable, so they are not there at all, nor their accounting of earlier runs. */
int own_proc(void) {
  unsigned long flags = MS_NOSUID | MS_NODEV | MS_NOEXEC;
  return mount("proc", "/proc", "proc", flags, "hidepid=invisible") == 0 ||
                 mount("proc", "/proc", "proc", flags, "hidepid=2") == 0
             ? 0
             : -1;
}

/* What of /proc every run shares and could write: /proc/sys (its IPC settings, and ns_last_pid's times, a
   file of mode 0666) and /proc/pressure (0666), each bound onto itself read-only. A write would change the
   IPC limits of a namespace, and even a refused one sets an inode's times that the next run reads back. */
int seal_proc(void) {
  static const char *const shared[] = { "/proc/sys", "/proc/pressure" };
  for (size_t i = 0; i < sizeof shared / sizeof *shared; i++) {
    if (mount(shared[i], shared[i], NULL, MS_BIND, NULL) != 0) {
      if (errno == ENOENT) continue; /* a kernel without pressure stall information */
      return -1;
    }
    unsigned long flags = MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC;
    if (mount(NULL, shared[i], NULL, flags, NULL) != 0) return -1;
  }
  return 0;
}

/* Reads what is there; 0 at end of file. Over `limit` bytes the run is stopped (the caller kills). */
int pump(struct stream *s, long long limit, int *exceeded) {
  char chunk[65536];
  for (;;) {
    ssize_t got = read(s->fd, chunk, sizeof chunk);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return errno == EAGAIN ? 1 : 0;
    if (got == 0) return 0;
    s->total += got;
    size_t room = s->keep - s->kept, take = (size_t)got < room ? (size_t)got : room;
    memcpy(s->data + s->kept, chunk, take);
    s->kept += take;
    if (s->total > limit) { *exceeded = 1; return 1; }
  }
}

/* Every process is gone, so what is in the socket is all there will be: read it without waiting for an
   end of file. (A program can post its own stdout over its stderr socket; that copy, queued in a socket
   the runner holds, would keep stdout from ever ending.) Closing drops anything still queued. */
void drain(struct stream *s, long long limit, int *exceeded) {
  if (s->fd < 0) return;
  pump(s, limit, exceeded);
  close(s->fd);
  s->fd = -1;
}

/* An output stream's ends: a socket pair, not a pipe, so that /proc/self/fd/1 cannot be opened again for
   reading, and the program reading its own output finds it at its end (the runner's side, ends[0], is shut
   for writing, and does not block). */
int stream_pair(int ends[2]) {
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) != 0) return -1;
  if (shutdown(ends[0], SHUT_WR) == 0 && fcntl(ends[0], F_SETFL, O_NONBLOCK) == 0) return 0;
  close(ends[0]);
  close(ends[1]);
  return -1;
}

/* The runner's end of an output stream, keeping its first `keep` bytes. */
int stream_adopt(struct stream *s, int fd, size_t keep) {
  *s = (struct stream){ fd, malloc(keep + 1), 0, keep, 0 };
  return s->data ? 0 : -1;
}

int stream_open(struct stream *s, int ends[2], size_t keep) {
  *s = (struct stream){ -1, NULL, 0, keep, 0 };
  return stream_pair(ends) != 0 ? -1 : stream_adopt(s, ends[0], keep);
}

/* Whatever is left (a process that overran, its forks, a new session, a keeper) dies now: the runner is
   alone in its PID namespace. Every child is reaped; `watched`'s status is kept (in `o`, when given) if the
   loop had not seen it end. */
void kill_and_reap(pid_t watched, struct outcome *o) {
  kill(-1, SIGKILL);
  int st;
  pid_t done;
  while ((done = waitpid(-1, &st, 0)) > 0 || (done < 0 && errno == EINTR))
    if (o && done == watched && !o->ended) { o->status = st; o->ended = 1; }
}
