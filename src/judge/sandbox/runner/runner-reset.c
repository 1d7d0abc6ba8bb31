/*
 * What the runner checks and resets after every run before it replies (runner.c's header has the rules):
 * its tmpfs, SysV IPC, its own state, processes left; then the reply itself.
 */
#include "runner.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/mount.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>
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
static int rows(const char *path) {
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

/* The IPC namespace the runs share, and its id cursors' sentinels. The namespace holds more than objects,
   and a program could move all of it: its limits (/proc/sys/kernel/shm*, msg*, sem, shm_rmid_forced and the
   fs/mqueue settings) and its id cursors (each new object's id tells how many came before). The runner makes
   the namespace the runs share itself (owned by its own user namespace, where no run is root, so no run can
   write a limit: bubblewrap's, owned by the slot uid, would let the first run write them), and a new one
   after any run that made a SysV object: the kernel's defaults and cursors at zero.
   Whether a run made one is read off the cursors themselves: before every run each kind's next_id
   (/proc/sys/kernel/{shm,sem,msg}_next_id, writable by CAP_SYS_ADMIN of the namespace's owner, i.e. the
   runner; never by a run) holds 0, and the kernel sets it to -1 when it hands out the next id, whether
   the object is then kept, removed or its creation fails. A run that made nothing leaves the namespace
   as it found it, and keeps it: a new namespace costs ~20 us to make, but freeing the last one takes the
   kernel's RCU work on both CPUs, 1.4-2.2 ms of a back-to-back run on a 2-CPU machine (docs/benchmarks.md).
   0 also gives the first object the id a new namespace would. Kernels without CONFIG_CHECKPOINT_RESTORE
   have no next_id files: a new namespace after every run there. */
static const char *const SYSV_TABLES[] = { "/proc/sysvipc/shm", "/proc/sysvipc/sem", "/proc/sysvipc/msg" };
static const char *const NEXT_IDS[] = { "shm_next_id", "sem_next_id", "msg_next_id" };
/* /proc/sys/kernel, opened before /proc/sys was bound read-only: the runner's writable way to it. */
static int sysctl_kernel = -1;
static int next_id_fds[3] = { -1, -1, -1 };
/* Whether the namespace must be made anew after every run (no next_id files). */
static int always_anew;

static void close_next_ids(void) {
  for (int t = 0; t < 3; t++) {
    if (next_id_fds[t] >= 0) close(next_id_fds[t]);
    next_id_fds[t] = -1;
  }
}

/* Opens the current namespace's next_id files (the sysctl a path names is the opener's namespace's) and
   sets each to 0. */
static int arm_next_ids(void) {
  close_next_ids();
  if (always_anew) return 0;
  for (int t = 0; t < 3; t++) {
    next_id_fds[t] = openat(sysctl_kernel, NEXT_IDS[t], O_RDWR | O_CLOEXEC);
    if (next_id_fds[t] < 0 || pwrite(next_id_fds[t], "0", 1, 0) != 1) return -1;
  }
  return 0;
}

/* Whether every kind's next_id still holds 0: no id was handed out since arm_next_ids. */
static int next_ids_untouched(void) {
  if (always_anew) return 0;
  for (int t = 0; t < 3; t++) {
    char value[24];
    ssize_t got = pread(next_id_fds[t], value, sizeof value - 1, 0);
    if (got <= 0) return 0;
    value[got] = 0;
    if (atoi(value) != 0 || value[0] != '0') return 0;
  }
  return 1;
}

/* The runs' first namespace, made before /proc/sys is sealed (runner.c). */
int own_sysv(void) {
  sysctl_kernel = open("/proc/sys/kernel", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (sysctl_kernel < 0 || unshare(CLONE_NEWIPC) != 0) return -1;
  int probe = openat(sysctl_kernel, NEXT_IDS[0], O_RDONLY | O_CLOEXEC);
  if (probe < 0 && errno != ENOENT) return -1;
  if (probe >= 0) close(probe);
  always_anew = probe < 0;
  return arm_next_ids();
}

/* SysV IPC after a run: when it made any object, every one left removed (its memory uncharged now, before
   the trailer, not whenever the kernel frees a namespace), then a new namespace. */
static int reset_sysv(void) {
  if (next_ids_untouched()) return 0;
  for (int t = 0; t < 3; t++) {
    int left = rows(SYSV_TABLES[t]);
    if (left < 0) return -1;
    if (left == 0) continue;
    FILE *table = fopen(SYSV_TABLES[t], "r");
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
  return unshare(CLONE_NEWIPC) != 0 ? -1 : arm_next_ids();
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
  return rows("/proc/net/unix");
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
