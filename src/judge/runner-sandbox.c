/*
 * How the runner starts a process (its descriptors, limits, cgroup, capabilities, seccomp) and what it
 * checks and resets after every run before it replies (runner.h; the rules are runner.c's header).
 */
#include "runner.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/close_range.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/mount.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/stat.h>
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

/* In a fork of the runner: sets the process up and execs it; never returns. */
void launch(const struct launch *l) {
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, NULL);
  if (l->ignore_sigpipe) signal(SIGPIPE, SIG_IGN);
  setpgid(0, 0);
  if (l->dir && chdir(l->dir) != 0) setup_failed('d');
  /* Join the run's cgroup last of the set-up: from here on, every page and every cycle is the program's. */
  if (l->cgroup_fds && strcmp(l->cgroup_fds, "-") != 0) {
    char *list = strdup(l->cgroup_fds);
    for (char *fd = strtok(list, ","); fd; fd = strtok(NULL, ","))
      if (write(atoi(fd), "0", 1) != 1) setup_failed('c');
  }
  if (l->in < 0 || dup2(l->in, 0) < 0 || dup2(l->out, 1) < 0 || dup2(l->err, 2) < 0) setup_failed('i');
  /* Everything beyond 0-2 (the requests, the replies, the cgroup files) closes at exec. */
  if (syscall(SYS_close_range, 3, ~0U, CLOSE_RANGE_CLOEXEC) != 0) setup_failed('f');
  /* Backstops per process; the verdict uses the cgroup's totals. SIGXCPU a second past the budget. */
  struct rlimit cpu = { (rlim_t)(l->cpu_ms / 1000 + 1), (rlim_t)(l->cpu_ms / 1000 + 2) };
  setrlimit(RLIMIT_CPU, &cpu);
  limit(RLIMIT_STACK, (rlim_t)l->stack_kb * 1024);
  limit(RLIMIT_FSIZE, (rlim_t)l->file_bytes);
  limit(RLIMIT_NPROC, (rlim_t)l->processes);
  limit(RLIMIT_CORE, 0);
  if (l->address_kb > 0) limit(RLIMIT_AS, (rlim_t)l->address_kb * 1024);
  drop_capabilities();
  if (install_seccomp() != 0) setup_failed('s');
  execvp(l->argv[0], l->argv);
  setup_failed('e');
}

/* The runner's two tmpfs, and when each root last changed as the runner left it. */
static const char *const TMPFS[] = { "/tmp", "/dev/shm" };
static struct timespec tmpfs_changed[2];
/* The size of the container's /tmp and /dev/shm (the judge's JUDGE_DISK_MB). */
long long tmp_bytes;

/* A tmpfs of the container's size at `where` (empty and read-only: a directory hidden from a program). */
int mount_tmpfs(const char *where, int read_only) {
  char options[64];
  snprintf(options, sizeof options, read_only ? "size=4k,mode=0555" : "size=%lld,mode=1777", tmp_bytes);
  unsigned long flags = MS_NOSUID | MS_NODEV | (read_only ? MS_RDONLY | MS_NOEXEC : 0);
  return mount("tmpfs", where, "tmpfs", flags, options);
}

int fresh_tmpfs(int which) {
  struct stat root;
  if (mount_tmpfs(TMPFS[which], 0) != 0 || stat(TMPFS[which], &root) != 0) return -1;
  tmpfs_changed[which] = root.st_ctim;
  return 0;
}

/* Whether a directory holds anything (an unreadable one counts as used). */
static int used(const char *where) {
  DIR *dir = opendir(where);
  if (!dir) return 1;
  struct dirent *entry;
  int found = 0;
  while (!found && (entry = readdir(dir))) found = strcmp(entry->d_name, ".") && strcmp(entry->d_name, "..");
  closedir(dir);
  return found;
}

/* /tmp or /dev/shm after a run: a fresh tmpfs in place of one the program touched (no tree to walk). The
   root is the slot uid's, like the program, so besides entries a program could leave a changed mode,
   extended attributes or an ACL on it: all of them change its ctime. */
static int reset_tmpfs(int which) {
  struct stat root;
  int same = stat(TMPFS[which], &root) == 0 && root.st_ctim.tv_sec == tmpfs_changed[which].tv_sec &&
             root.st_ctim.tv_nsec == tmpfs_changed[which].tv_nsec;
  if (same && !used(TMPFS[which])) return 0;
  if (umount2(TMPFS[which], MNT_DETACH) != 0) return -1;
  return fresh_tmpfs(which);
}

/* SysV IPC objects the run made (this IPC namespace is the container's): all removed, as their owner. */
static int reset_sysv(void) {
  static const char *const tables[] = { "/proc/sysvipc/shm", "/proc/sysvipc/sem", "/proc/sysvipc/msg" };
  for (int t = 0; t < 3; t++) {
    FILE *table = fopen(tables[t], "r");
    if (!table) return -1;
    char line[512];
    int header = 1;
    while (fgets(line, sizeof line, table)) {
      if (header) { header = 0; continue; }
      int key, id;
      if (sscanf(line, "%d %d", &key, &id) != 2) continue;
      int gone = t == 0 ? shmctl(id, IPC_RMID, NULL) : t == 1 ? semctl(id, 0, IPC_RMID) : msgctl(id, IPC_RMID, NULL);
      if (gone != 0) { fclose(table); return -1; }
    }
    fclose(table);
  }
  return 0;
}

void observe(struct pristine *p) {
  memset(p, 0, sizeof *p);
  for (int r = 0; r < RLIM_NLIMITS; r++) getrlimit(r, &p->limits[r]);
  errno = 0;
  p->priority = getpriority(PRIO_PROCESS, 0);
  p->policy = sched_getscheduler(0);
  sched_getaffinity(0, sizeof p->cpus, &p->cpus);
  sigprocmask(SIG_BLOCK, NULL, &p->mask);
}

/* Processes in this PID namespace besides the runner (none once a run has been reaped). */
static int others_alive(void) {
  DIR *proc = opendir("/proc");
  if (!proc) return -1;
  int count = 0;
  struct dirent *entry;
  while ((entry = readdir(proc))) {
    int pid = atoi(entry->d_name);
    if (pid > 1) count++;
  }
  closedir(proc);
  return count;
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

/* An output stream: a socket pair, not a pipe, so that /proc/self/fd/1 cannot be opened again for reading,
   and the program reading its own output finds it at its end (the runner's side is shut for writing). */
int stream_open(struct stream *s, int ends[2], size_t keep) {
  *s = (struct stream){ -1, malloc(keep + 1), 0, keep, 0 };
  if (!s->data || socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) != 0) return -1;
  s->fd = ends[0];
  if (shutdown(ends[0], SHUT_WR) != 0) return -1;
  return fcntl(ends[0], F_SETFL, O_NONBLOCK);
}

/* Whatever is left (a process that overran, its forks, a new session) dies now: the runner is alone in its
   PID namespace. Every child is reaped; `watched`'s status is kept if the loop had not seen it end. */
void kill_and_reap(pid_t watched, struct outcome *o) {
  kill(-1, SIGKILL);
  int st;
  pid_t done;
  while ((done = waitpid(-1, &st, 0)) > 0 || (done < 0 && errno == EINTR))
    if (done == watched && !o->ended) { o->status = st; o->ended = 1; }
}

/* Why the container may not take another run, or "" (runner.c's header has the rules). */
static const char *after_run(const struct pristine *before) {
  struct pristine after;
  observe(&after);
  return others_alive() != 0 ? "a process outlived its run"
         : reset_tmpfs(0) != 0 || reset_tmpfs(1) != 0 ? "a tmpfs could not be made anew"
         : reset_sysv() != 0 ? "an IPC object could not be removed"
         : memcmp(before->limits, after.limits, sizeof after.limits) ? "the runner's limits changed"
         : before->priority != after.priority || before->policy != after.policy ? "the runner's priority changed"
         : !CPU_EQUAL(&before->cpus, &after.cpus) ? "the runner's CPUs changed"
         : memcmp(&before->mask, &after.mask, sizeof after.mask) ? "the runner's signal mask changed"
         : "";
}

/* Resets the container, writes the reply (JSON, stdout, stderr, then `more` when given), frees the streams;
   returns whether the container is still fit for another run. `extra` is more JSON fields, or "". */
int reply(const struct outcome *o, struct stream *out, struct stream *err, const char *extra, struct stream *more,
          const struct pristine *before) {
  const char *why = after_run(before);
  char header[1024];
  int size = snprintf(header, sizeof header,
                      "{\"exitCode\":%d,\"signal\":%d,\"wallMs\":%lld,\"wallExceeded\":%s,\"setupFailed\":\"%s\","
                      "\"outputExceeded\":%s,\"stdoutBytes\":%lld,\"stderrBytes\":%lld,\"stdoutKept\":%zu,"
                      "\"stderrKept\":%zu,\"clean\":%s,\"why\":\"%s\"%s}",
                      o->ended && WIFEXITED(o->status) ? WEXITSTATUS(o->status) : -1,
                      o->ended && WIFSIGNALED(o->status) ? WTERMSIG(o->status) : (o->ended ? 0 : SIGKILL), o->wall,
                      o->wall_exceeded ? "true" : "false", o->stage ? (char[]){ o->stage, 0 } : "",
                      o->exceeded ? "true" : "false", out->total, err->total, out->kept, err->kept,
                      *why ? "false" : "true", why, extra);
  uint32_t length = (uint32_t)size;
  int ok = size < (int)sizeof header && write_full(1, &length, 4) == 0 &&
           write_full(1, header, (size_t)size) == 0 && write_full(1, out->data, out->kept) == 0 &&
           write_full(1, err->data, err->kept) == 0 && (!more || write_full(1, more->data, more->kept) == 0);
  free(out->data);
  free(err->data);
  if (more) free(more->data);
  return ok && !*why;
}
