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
 * The runner keeps CAP_SYS_ADMIN of its own user namespace (bwrap --cap-add) for those mounts; the
 * program never has it: the fork drops every capability before exec.
 *
 * CGROUP_FDS are cgroup.procs files the judge opened as root: the program joins its slot's run cgroup
 * through them just before exec, so CPU and memory are counted by the kernel for the program's whole
 * process tree, and read by the judge outside the sandbox.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <linux/capability.h>
#include <linux/close_range.h>
#include <poll.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/msg.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>


enum { F_WALL, F_CPU, F_STACK, F_FILE, F_PROCS, F_KEEP_OUT, F_KEEP_ERR, F_STDIN, F_PROGRAM };
#define MAX_REQUEST (1 << 20)
#define MAX_FIELDS 4096

/* Denied with EPERM: other processes' memory and descriptors, and kernel surface no submission needs. */
static const char *const DENIED[] = {
  "ptrace", "process_vm_readv", "process_vm_writev", "pidfd_getfd", "pidfd_open", "kcmp",
  "bpf", "userfaultfd", "perf_event_open", "keyctl", "add_key", "request_key",
  "mount", "umount2", "pivot_root", "chroot", "move_mount", "open_tree", "fsopen", "fsconfig", "fsmount", "fspick",
  "mount_setattr", "unshare", "setns", "swapon", "swapoff", "reboot", "kexec_load", "kexec_file_load",
  "init_module", "finit_module", "delete_module", "acct", "quotactl", "quotactl_fd", "syslog", "vhangup",
  "settimeofday", "clock_settime", "clock_adjtime", "adjtimex", "open_by_handle_at", "name_to_handle_at",
  "lookup_dcookie", "fanotify_init", "iopl", "ioperm", "io_uring_setup", "io_uring_enter", "io_uring_register",
  "personality", "uselib", "ustat", "sysfs", "nfsservctl", "_sysctl", "landlock_create_ruleset", "ioprio_set",
  /* POSIX message queues would outlive the run in the container's IPC namespace, and no program needs them. */
  "mq_open", "mq_unlink", "mq_timedsend", "mq_timedreceive", "mq_notify", "mq_getsetattr",
};

/* Calls whose first argument names the process they change: allowed on the caller itself (0) only, so a
   program cannot lower the runner's limits, priority or CPUs, which the next run's program would inherit. */
static const char *const SELF_ONLY[] = {
  "prlimit64", "sched_setaffinity", "sched_setscheduler", "sched_setparam", "sched_setattr",
};

/* The filter as BPF, built once when the container starts (libseccomp takes ~0.25 ms to build it, which
   each run would pay again), then loaded by each program's fork just before exec. */
static struct sock_fprog filter;

static int build_seccomp(void) {
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
  if (!ctx) return -1;
  for (size_t i = 0; i < sizeof DENIED / sizeof *DENIED; i++) {
    int nr = seccomp_syscall_resolve_name(DENIED[i]);
    if (nr != __NR_SCMP_ERROR && seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr, 0) != 0) goto fail;
  }
  for (size_t i = 0; i < sizeof SELF_ONLY / sizeof *SELF_ONLY; i++) {
    int nr = seccomp_syscall_resolve_name(SELF_ONLY[i]);
    if (nr != __NR_SCMP_ERROR &&
        seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr, 1, SCMP_A0(SCMP_CMP_NE, 0)) != 0) goto fail;
  }
  /* setpriority(which, who): PRIO_PROCESS of itself only (PRIO_USER 0 would be every process of the uid). */
  if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(setpriority), 1, SCMP_A0(SCMP_CMP_NE, PRIO_PROCESS)) != 0 ||
      seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(setpriority), 1, SCMP_A1(SCMP_CMP_NE, 0)) != 0) goto fail;
  /* New namespaces: clone with CLONE_NEW* flags; clone3 hides its flags in memory, so it says ENOSYS
     and the C library falls back to clone. */
  if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
                       SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_NEWUSER, CLONE_NEWUSER)) != 0) goto fail;
  if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0) != 0) goto fail;
  /* Another architecture's system calls (int 0x80, x32) would dodge the list: they kill the program. */
  if (seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS) != 0) goto fail;
  int memory = memfd_create("filter", MFD_CLOEXEC);
  if (memory < 0 || seccomp_export_bpf(ctx, memory) != 0) goto fail;
  off_t size = lseek(memory, 0, SEEK_END);
  filter.len = (unsigned short)(size / (off_t)sizeof(struct sock_filter));
  filter.filter = malloc((size_t)size);
  if (size <= 0 || !filter.filter || pread(memory, filter.filter, (size_t)size, 0) != size) goto fail;
  close(memory);
  seccomp_release(ctx);
  return 0;
fail:
  seccomp_release(ctx);
  return -1;
}

static int install_seccomp(void) {
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return -1;
  return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &filter);
}

static long long now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int read_full(int fd, void *buffer, size_t size) {
  for (size_t done = 0; done < size;) {
    ssize_t got = read(fd, (char *)buffer + done, size - done);
    if (got == 0) return 0;
    if (got < 0) { if (errno == EINTR) continue; return -1; }
    done += (size_t)got;
  }
  return 1;
}

static int write_full(int fd, const void *buffer, size_t size) {
  for (size_t done = 0; done < size;) {
    ssize_t put = write(fd, (const char *)buffer + done, size - done);
    if (put < 0) { if (errno == EINTR) continue; return -1; }
    done += (size_t)put;
  }
  return 0;
}

/* Set-up failures in the child travel on a close-on-exec pipe, so they never pass for the program's exit code. */
static int setup_pipe = -1;
static void setup_failed(char stage) {
  if (write(setup_pipe, &stage, 1) < 0) {}
  _exit(127);
}

static void limit(int resource, rlim_t value) {
  struct rlimit rl = { value, value };
  if (setrlimit(resource, &rl) != 0) setup_failed('l');
}

/* The size of the container's /tmp and /dev/shm (the judge's JUDGE_DISK_MB). */
static long long tmp_bytes;

/* The runner's two tmpfs, and when each root last changed as the runner left it. */
static const char *const TMPFS[] = { "/tmp", "/dev/shm" };
static struct timespec tmpfs_changed[2];

static int fresh_tmpfs(int which) {
  char options[64];
  snprintf(options, sizeof options, "size=%lld,mode=1777", tmp_bytes);
  struct stat root;
  if (mount("tmpfs", TMPFS[which], "tmpfs", MS_NOSUID | MS_NODEV, options) != 0 || stat(TMPFS[which], &root) != 0)
    return -1;
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

static void drop_capabilities(void) {
  struct __user_cap_header_struct header = { _LINUX_CAPABILITY_VERSION_3, 0 };
  struct __user_cap_data_struct none[2] = { { 0, 0, 0 }, { 0, 0, 0 } };
  if (syscall(SYS_capset, &header, none) != 0) setup_failed('p');
}

static void run_program(char **f, int out, int err, const char *cgroup_fds) {
  setpgid(0, 0);
  /* Join the run's cgroup last of the set-up: from here on, every page and every cycle is the program's. */
  if (strcmp(cgroup_fds, "-") != 0) {
    char *list = strdup(cgroup_fds);
    for (char *fd = strtok(list, ","); fd; fd = strtok(NULL, ","))
      if (write(atoi(fd), "0", 1) != 1) setup_failed('c');
  }
  const char *stdin_path = f[F_STDIN];
  int in = strcmp(stdin_path, "-") == 0 ? open("/dev/null", O_RDONLY) : open(stdin_path, O_RDONLY | O_NOFOLLOW);
  if (in < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0) setup_failed('i');
  /* Everything beyond 0-2 (the requests, the replies, the cgroup files) closes at exec. */
  if (syscall(SYS_close_range, 3, ~0U, CLOSE_RANGE_CLOEXEC) != 0) setup_failed('f');
  /* Backstops per process; the verdict uses the cgroup's totals. SIGXCPU a second past the budget. */
  long long cpu_ms = atoll(f[F_CPU]);
  struct rlimit cpu = { (rlim_t)(cpu_ms / 1000 + 1), (rlim_t)(cpu_ms / 1000 + 2) };
  setrlimit(RLIMIT_CPU, &cpu);
  limit(RLIMIT_STACK, (rlim_t)atoll(f[F_STACK]) * 1024);
  limit(RLIMIT_FSIZE, (rlim_t)atoll(f[F_FILE]));
  limit(RLIMIT_NPROC, (rlim_t)atoll(f[F_PROCS]));
  limit(RLIMIT_CORE, 0);
  drop_capabilities();
  if (install_seccomp() != 0) setup_failed('s');
  execvp(f[F_PROGRAM], f + F_PROGRAM);
  setup_failed('e');
}

/* What the program may not change for the next run; compared after every run. */
struct pristine {
  struct rlimit limits[RLIM_NLIMITS];
  int priority;
  int policy;
  cpu_set_t cpus;
  sigset_t mask;
};

static void observe(struct pristine *p) {
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

/* An output pipe: the first `keep` bytes kept, every byte counted. */
struct stream {
  int fd;
  char *data;
  size_t kept, keep;
  long long total;
};

/* Reads what is there; 0 at end of file. Over `limit` bytes the run is stopped (the caller kills). */
static int pump(struct stream *s, long long limit, int *exceeded) {
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

/* The program's stdout or stderr: a socket pair, not a pipe, so that /proc/self/fd/1 cannot be opened
   again for reading, and the program reading its own output finds it at its end (the runner's side is
   shut for writing). */
static int open_pipe(int ends[2]) {
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) != 0) return -1;
  if (shutdown(ends[0], SHUT_WR) != 0) return -1;
  return fcntl(ends[0], F_SETFL, O_NONBLOCK);
}

/* Runs one request and writes its reply; returns whether the container is still fit for another run. */
static int serve(char **f, int sigfd, const char *cgroup_fds, const struct pristine *before) {
  long long wall_ms = atoll(f[F_WALL]), file_bytes = atoll(f[F_FILE]);
  struct stream out = { -1, NULL, 0, (size_t)atoll(f[F_KEEP_OUT]), 0 };
  struct stream err = { -1, NULL, 0, (size_t)atoll(f[F_KEEP_ERR]), 0 };
  out.data = malloc(out.keep + 1);
  err.data = malloc(err.keep + 1);
  int out_pipe[2], err_pipe[2], setup[2];
  if (!out.data || !err.data || open_pipe(out_pipe) || open_pipe(err_pipe) || pipe2(setup, O_CLOEXEC)) return 0;
  setup_pipe = setup[1];
  out.fd = out_pipe[0];
  err.fd = err_pipe[0];

  long long started = now_ms();
  pid_t pid = fork();
  if (pid < 0) return 0;
  if (pid == 0) {
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    run_program(f, out_pipe[1], err_pipe[1], cgroup_fds);
  }
  close(out_pipe[1]);
  close(err_pipe[1]);
  close(setup[1]);

  /* Woken by output, by a child's end (SIGCHLD) or at the wall-clock deadline. */
  int status = 0, ended = 0, wall_exceeded = 0, exceeded = 0;
  while (!ended) {
    long long left = wall_ms - (now_ms() - started);
    if (left < 0) { wall_exceeded = 1; break; }
    struct pollfd fds[3] = { { sigfd, POLLIN, 0 }, { out.fd, POLLIN, 0 }, { err.fd, POLLIN, 0 } };
    if (poll(fds, 3, left > 1000 ? 1000 : (int)left + 1) < 0 && errno != EINTR) break;
    if (out.fd >= 0 && fds[1].revents && !pump(&out, file_bytes, &exceeded)) { close(out.fd); out.fd = -1; }
    if (err.fd >= 0 && fds[2].revents && !pump(&err, file_bytes, &exceeded)) { close(err.fd); err.fd = -1; }
    if (exceeded) break;
    if (fds[0].revents) {
      struct signalfd_siginfo info;
      while (read(sigfd, &info, sizeof info) == sizeof info) {}
    }
    int st;
    pid_t done;
    while ((done = waitpid(-1, &st, WNOHANG)) > 0)
      if (done == pid) { status = st; ended = 1; }
  }
  long long wall = now_ms() - started;
  /* Whatever is left (the program if it overran, its forks, a new session) dies now: we are alone in this
     PID namespace. Every child is reaped, and the pipes then hold all the output there will be. */
  kill(-1, SIGKILL);
  int st;
  pid_t done;
  while ((done = waitpid(-1, &st, 0)) > 0 || (done < 0 && errno == EINTR))
    if (done == pid && !ended) { status = st; ended = 1; }
  /* Every process is gone, so what is in the sockets is all there will be: read it without waiting for
     an end of file. (A program can post its own stdout over its stderr socket; that copy, queued in a
     socket the runner holds, would keep stdout from ever ending.) Closing drops anything still queued. */
  int dummy = 0;
  if (out.fd >= 0) { pump(&out, file_bytes, &dummy); close(out.fd); }
  if (err.fd >= 0) { pump(&err, file_bytes, &dummy); close(err.fd); }
  exceeded |= dummy;
  char stage = 0;
  if (read(setup[0], &stage, 1) != 1) stage = 0;
  close(setup[0]);

  struct pristine after;
  observe(&after);
  int left_behind = others_alive();
  const char *why = left_behind != 0 ? "a process outlived its run"
                    : reset_tmpfs(0) != 0 || reset_tmpfs(1) != 0 ? "a tmpfs could not be made anew"
                    : reset_sysv() != 0 ? "an IPC object could not be removed"
                    : memcmp(before->limits, after.limits, sizeof after.limits) ? "the runner's limits changed"
                    : before->priority != after.priority || before->policy != after.policy ? "the runner's priority changed"
                    : !CPU_EQUAL(&before->cpus, &after.cpus) ? "the runner's CPUs changed"
                    : memcmp(&before->mask, &after.mask, sizeof after.mask) ? "the runner's signal mask changed"
                    : "";
  char header[512];
  int size = snprintf(header, sizeof header,
                      "{\"exitCode\":%d,\"signal\":%d,\"wallMs\":%lld,\"wallExceeded\":%s,\"setupFailed\":\"%s\","
                      "\"outputExceeded\":%s,\"stdoutBytes\":%lld,\"stderrBytes\":%lld,\"stdoutKept\":%zu,"
                      "\"stderrKept\":%zu,\"clean\":%s,\"why\":\"%s\"}",
                      ended && WIFEXITED(status) ? WEXITSTATUS(status) : -1,
                      ended && WIFSIGNALED(status) ? WTERMSIG(status) : (ended ? 0 : SIGKILL), wall,
                      wall_exceeded ? "true" : "false", stage ? (char[]){ stage, 0 } : "",
                      exceeded ? "true" : "false", out.total, err.total, out.kept, err.kept,
                      *why ? "false" : "true", why);
  uint32_t length = (uint32_t)size;
  int ok = write_full(1, &length, 4) == 0 && write_full(1, header, (size_t)size) == 0 &&
           write_full(1, out.data, out.kept) == 0 && write_full(1, err.data, err.kept) == 0;
  free(out.data);
  free(err.data);
  return ok && !*why;
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
    if (count <= F_PROGRAM) return 127;
    if (!serve(fields, sigfd, cgroup_fds, &before)) return 0;
  }
}
