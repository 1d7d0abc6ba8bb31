/*
 * What the runner checks and resets after every run before it replies (runner.c's header has the rules):
 * processes left, the tmpfs (runner-layers.c), SysV IPC (runner-sysv.c), its own state; then the reply
 * itself.
 */
#include "runner.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* The size of the container's /work, /tmp and /dev/shm (the judge's JUDGE_DISK_MB). */
long long tmp_bytes;

/* A tmpfs of the container's size at `where` (empty and read-only: a directory hidden from a program). No
   access times: a read changes nothing a later run could see, and the runner's own look changes nothing. */
int mount_tmpfs(const char *where, int read_only) {
  char options[64];
  snprintf(options, sizeof options, read_only ? "size=4k,mode=0555" : "size=%lld,mode=1777", tmp_bytes);
  unsigned long flags = MS_NOSUID | MS_NODEV | MS_NOATIME | (read_only ? MS_RDONLY | MS_NOEXEC : 0);
  return mount("tmpfs", where, "tmpfs", flags, options);
}

/* The lines of a /proc table after its header (0 when empty), read with one read: the runner asks after
   every run, and a table it must act on is rare. -1 when it cannot be read. */
int table_rows(const char *path) {
  char buffer[4096];
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  ssize_t got = read(fd, buffer, sizeof buffer - 1);
  close(fd);
  if (got < 0) return -1;
  int lines = 0;
  for (ssize_t i = 0; i < got; i++) lines += buffer[i] == '\n';
  /* A full buffer holds more rows than it shows: at least one beyond the header. */
  return got == (ssize_t)sizeof buffer - 1 && lines < 2 ? 1 : lines - 1;
}

/* The PID counter of the runs' namespace, as it was before the first run: each run's processes get the
   same numbers whatever ran before (a number chosen by the number of forks would be a channel). The runner
   is the namespace's init, with CAP_SYS_ADMIN in the user namespace that owns it; every process of the
   run is reaped by now, so the numbers are free. */
static int last_pid_fd = -1;
static char last_pid[24];

int remember_pid_counter(void) {
  last_pid_fd = open("/proc/sys/kernel/ns_last_pid", O_RDWR | O_CLOEXEC);
  ssize_t got = last_pid_fd < 0 ? -1 : pread(last_pid_fd, last_pid, sizeof last_pid - 1, 0);
  if (got <= 0) return -1;
  last_pid[got] = 0;
  return 0;
}

static int reset_pid_counter(void) {
  return pwrite(last_pid_fd, last_pid, strlen(last_pid), 0) > 0 ? 0 : -1;
}

/* The nice value of the runner's autogroup (its session's CPU weight), or -100 when unreadable. Programs
   run in sessions of their own (launch), so none should reach it; checked after every run all the same. */
static int autogroup_nice(void) {
  char text[128];
  int fd = open("/proc/self/autogroup", O_RDONLY | O_CLOEXEC), nice = -100;
  ssize_t got = fd < 0 ? -1 : read(fd, text, sizeof text - 1);
  if (fd >= 0) close(fd);
  if (got > 0) {
    text[got] = 0;
    const char *at = strstr(text, " nice ");
    if (at) nice = atoi(at + 6);
  }
  return nice;
}

void observe(struct pristine *p) {
  memset(p, 0, sizeof *p);
  for (int r = 0; r < RLIM_NLIMITS; r++) getrlimit(r, &p->limits[r]);
  errno = 0;
  p->priority = getpriority(PRIO_PROCESS, 0);
  p->policy = sched_getscheduler(0);
  sched_getaffinity(0, sizeof p->cpus, &p->cpus);
  sigprocmask(SIG_BLOCK, NULL, &p->mask);
  p->autogroup = autogroup_nice();
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

/* Unix sockets left in the container's network namespace (its /proc/net/unix: the runner holds none once
   its streams are closed). One that outlives its run is held only by a descriptor in flight in a socket of
   its own, which the kernel collects later; until then it could keep an abstract name bound for the next
   run to find, or a file of /work alive, so the container goes. Other families are refused (seccomp). */
static int sockets_left(void) {
  return table_rows("/proc/net/unix");
}

/* Why the container may not take another run, or "" (runner.c's header has the rules). */
static const char *after_run(const struct pristine *before) {
  struct pristine after;
  observe(&after);
  return others_alive() != 0 ? "a process outlived its run"
         : layers_renew() != 0 ? "a tmpfs could not be made anew"
         : reset_sysv() != 0 ? "the IPC namespace could not be made anew"
         : reset_pid_counter() != 0 ? "the PID counter could not be reset"
         : sockets_left() != 0 ? "a socket outlived its run"
         : memcmp(before->limits, after.limits, sizeof after.limits) ? "the runner's limits changed"
         : before->priority != after.priority || before->policy != after.policy ? "the runner's priority changed"
         : !CPU_EQUAL(&before->cpus, &after.cpus) ? "the runner's CPUs changed"
         : memcmp(&before->mask, &after.mask, sizeof after.mask) ? "the runner's signal mask changed"
         : before->autogroup != after.autogroup ? "the runner's autogroup changed"
         : "";
}

static int frame(const char *json, int size, int room) {
  uint32_t length = (uint32_t)size;
  return size < room && write_full(1, &length, 4) == 0 && write_full(1, json, (size_t)size) == 0 ? 0 : -1;
}

/* Writes the reply: JSON, stdout, stderr, then `more` when given, then the files read back from /work
   (runner-work.c); then unmounts /work, resets the container and writes the trailer, a JSON saying whether
   the container is fit for another run. The judge limits the next run only after reading the trailer, so
   by then nothing of this one is charged to the slot's cgroup. `extra` is more JSON fields, or "". */
int reply(const struct request *r, const struct outcome *o, struct stream *out, struct stream *err,
          const char *extra, struct stream *more, const struct pristine *before) {
  struct taken *files;
  int dropped;
  int taken = work_take(r, &files, &dropped);
  char header[1024];
  int size = snprintf(header, sizeof header,
                      "{\"exitCode\":%d,\"signal\":%d,\"wallMs\":%lld,\"wallExceeded\":%s,\"setupFailed\":\"%s\","
                      "\"outputExceeded\":%s,\"stdoutBytes\":%lld,\"stderrBytes\":%lld,\"stdoutKept\":%zu,"
                      "\"stderrKept\":%zu,\"taken\":%d,\"dropped\":%d%s}",
                      o->ended && WIFEXITED(o->status) ? WEXITSTATUS(o->status) : -1,
                      o->ended && WIFSIGNALED(o->status) ? WTERMSIG(o->status) : (o->ended ? 0 : SIGKILL), o->wall,
                      o->wall_exceeded ? "true" : "false", o->stage ? (char[]){ o->stage, 0 } : "",
                      o->exceeded ? "true" : "false", out->total, err->total, out->kept, err->kept, taken, dropped,
                      extra);
  int ok = frame(header, size, sizeof header) == 0 && write_full(1, out->data, out->kept) == 0 &&
           write_full(1, err->data, err->kept) == 0 && (!more || write_full(1, more->data, more->kept) == 0) &&
           work_send(files, taken) == 0;
  free(out->data);
  free(err->data);
  if (more) free(more->data);
  /* What is left of the run goes now, off its path: /work, /tmp and /dev/shm get their next layers. */
  work_end(files, taken);
  const char *why = after_run(before);
  char trailer[256];
  size = snprintf(trailer, sizeof trailer, "{\"clean\":%s,\"why\":\"%s\"}", *why ? "false" : "true", why);
  ok = ok && frame(trailer, size, sizeof trailer) == 0;
  return ok && !*why;
}
