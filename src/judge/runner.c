/*
 * The judge's in-sandbox runner: started by bwrap as the sandbox's main process, it runs one program
 * under limits and reports, on fd 3, how the program ended and how long it took on the wall clock.
 *
 *   runner WALL_MS CPU_MS STACK_KB FILE_BYTES PROCESSES CGROUP_FDS STDIN -- PROGRAM [ARG...]
 *
 * The program's stdout is the runner's fd 1 and its stderr the runner's fd 4: pipes the judge reads on
 * the host, so output never lands where the program could rewrite it. CGROUP_FDS ("5,6,7" or "-") are
 * cgroup.procs files the judge opened as root: the program joins its run's cgroup through them just
 * before exec, so CPU and memory are counted by the kernel for the program's whole process tree, and
 * read by the judge outside the sandbox. STDIN is a path or "-" (empty input).
 *
 * Nothing the program does can change the report: the runner is not dumpable (no ptrace, no
 * /proc/PID/fd, no pidfd_getfd from the program's uid), the program inherits no descriptor beyond 0-2,
 * and a seccomp filter denies the calls that reach into other processes or the kernel's rarer corners.
 *
 * The runner is the sandbox's PID 1 (bwrap --as-pid-1: no bubblewrap init inside), so the program sees
 * its own processes and this one, and nothing of this one: not dumpable (environ, fd/, mem, maps are
 * closed to it), its command line blanked before the program starts, and, being PID 1 of the namespace,
 * deaf to every signal the program may send. As PID 1 it also reaps the orphans the program leaves.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/close_range.h>
#include <poll.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Denied with EPERM: other processes' memory and descriptors, and kernel surface no submission needs. */
static const char *const DENIED[] = {
  "ptrace", "process_vm_readv", "process_vm_writev", "pidfd_getfd", "pidfd_open", "kcmp",
  "bpf", "userfaultfd", "perf_event_open", "keyctl", "add_key", "request_key",
  "mount", "umount2", "pivot_root", "chroot", "move_mount", "open_tree", "fsopen", "fsconfig", "fsmount", "fspick",
  "mount_setattr", "unshare", "setns", "swapon", "swapoff", "reboot", "kexec_load", "kexec_file_load",
  "init_module", "finit_module", "delete_module", "acct", "quotactl", "quotactl_fd", "syslog", "vhangup",
  "settimeofday", "clock_settime", "clock_adjtime", "adjtimex", "open_by_handle_at", "name_to_handle_at",
  "lookup_dcookie", "fanotify_init", "iopl", "ioperm", "io_uring_setup", "io_uring_enter", "io_uring_register",
  "personality", "uselib", "ustat", "sysfs", "nfsservctl", "_sysctl", "landlock_create_ruleset",
};

static long long now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
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

static int install_seccomp(void) {
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
  if (!ctx) return -1;
  for (size_t i = 0; i < sizeof DENIED / sizeof *DENIED; i++) {
    int nr = seccomp_syscall_resolve_name(DENIED[i]);
    if (nr != __NR_SCMP_ERROR && seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr, 0) != 0) goto fail;
  }
  /* New namespaces: clone with CLONE_NEW* flags; clone3 hides its flags in memory, so it says ENOSYS
     and the C library falls back to clone. */
  if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
                       SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_NEWUSER, CLONE_NEWUSER)) != 0) goto fail;
  if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0) != 0) goto fail;
  /* Another architecture's system calls (int 0x80, x32) would dodge the list: they kill the program. */
  if (seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS) != 0) goto fail;
  if (seccomp_load(ctx) != 0) goto fail;
  seccomp_release(ctx);
  return 0;
fail:
  seccomp_release(ctx);
  return -1;
}

static void run_program(char **argv, const char *stdin_path, char *cgroup_fds, long long cpu_ms, long long stack_kb,
                        long long file_bytes, long long processes) {
  setpgid(0, 0);
  /* Join the run's cgroup first: from here on, every page and every cycle of the program is counted. */
  if (strcmp(cgroup_fds, "-") != 0) {
    for (char *fd = strtok(cgroup_fds, ","); fd; fd = strtok(NULL, ",")) {
      if (write(atoi(fd), "0", 1) != 1) setup_failed('c');
    }
  }
  int in = strcmp(stdin_path, "-") == 0 ? open("/dev/null", O_RDONLY) : open(stdin_path, O_RDONLY | O_NOFOLLOW);
  if (in < 0 || dup2(in, 0) < 0 || dup2(4, 2) < 0) setup_failed('i');
  /* Everything beyond 0-2 (the report, the cgroup files) closes at exec; the set-up pipe stays usable until then. */
  if (syscall(SYS_close_range, 3, ~0U, CLOSE_RANGE_CLOEXEC) != 0) setup_failed('f');
  /* Backstops per process; the verdict uses the cgroup's totals. SIGXCPU a second past the budget. */
  struct rlimit cpu = { (rlim_t)(cpu_ms / 1000 + 1), (rlim_t)(cpu_ms / 1000 + 2) };
  setrlimit(RLIMIT_CPU, &cpu);
  limit(RLIMIT_STACK, (rlim_t)stack_kb * 1024);
  limit(RLIMIT_FSIZE, (rlim_t)file_bytes);
  limit(RLIMIT_NPROC, (rlim_t)processes);
  limit(RLIMIT_CORE, 0);
  if (install_seccomp() != 0) setup_failed('s');
  execvp(argv[0], argv);
  setup_failed('e');
}

/* The command line (limits, the program's arguments) reads as "/.runner" alone in /proc/1/cmdline: the
   strings are copied out first, then the argument area is zeroed. */
static char **blank_command_line(int argc, char **argv) {
  char **copy = calloc((size_t)argc + 1, sizeof *copy);
  if (!copy) return NULL;
  for (int i = 0; i < argc; i++) if (!(copy[i] = strdup(argv[i]))) return NULL;
  if (argc > 1) {
    char *end = argv[argc - 1] + strlen(argv[argc - 1]);
    memset(argv[1], 0, (size_t)(end - argv[1]));
  }
  return copy;
}

/* SIGCHLD as a descriptor: the wait below wakes for the program's end and for orphans to reap. */
static int child_signals(void) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGCHLD);
  if (sigprocmask(SIG_BLOCK, &set, NULL) != 0) return -1;
  return signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
}

/* Reaps every child that has ended; true once `pid` is among them (its status in *status). */
static int reap(pid_t pid, int *status) {
  int found = 0, st;
  pid_t done;
  while ((done = waitpid(-1, &st, WNOHANG)) > 0) {
    if (done == pid) { *status = st; found = 1; }
  }
  return found;
}

int main(int argc, char **argv) {
  if (argc < 10 || strcmp(argv[8], "--") != 0) {
    fprintf(stderr, "usage: runner WALL_MS CPU_MS STACK_KB FILE_BYTES PROCESSES CGROUP_FDS STDIN -- PROGRAM [ARG...]\n");
    return 120;
  }
  /* First of all: nothing running as this uid may inspect or steal from this process. */
  if (prctl(PR_SET_DUMPABLE, 0) != 0) return 119;
  argv = blank_command_line(argc, argv);
  if (!argv) return 118;
  long long wall_ms = atoll(argv[1]), cpu_ms = atoll(argv[2]), stack_kb = atoll(argv[3]);
  long long file_bytes = atoll(argv[4]), processes = atoll(argv[5]);
  FILE *report = fdopen(3, "w");
  if (!report) return 122;
  fcntl(3, F_SETFD, FD_CLOEXEC);
  int sigfd = child_signals();
  if (sigfd < 0) return 124;

  int setup[2];
  if (pipe2(setup, O_CLOEXEC) != 0) return 123;
  setup_pipe = setup[1];
  long long started = now_ms();
  pid_t pid = fork();
  if (pid < 0) return 123;
  if (pid == 0) {
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    run_program(argv + 9, argv[7], argv[6], cpu_ms, stack_kb, file_bytes, processes);
  }
  /* The runner keeps none of the program's channels: EOF on them is the judge's business. */
  close(1);
  close(4);
  close(setup[1]);

  /* Woken when a child ends (SIGCHLD), or at the wall-clock deadline. */
  int status = 0;
  int wall_exceeded = 0;
  for (;;) {
    if (reap(pid, &status)) break;
    long long left = wall_ms - (now_ms() - started);
    if (left < 0) {
      wall_exceeded = 1;
      kill(-pid, SIGKILL);
      kill(pid, SIGKILL);
      if (waitpid(pid, &status, 0) < 0 && errno == ECHILD) reap(pid, &status);
      break;
    }
    struct pollfd wait_for = { sigfd, POLLIN, 0 };
    if (poll(&wait_for, 1, left > 1000 ? 1000 : (int)left + 1) > 0) {
      struct signalfd_siginfo info;
      while (read(sigfd, &info, sizeof info) == sizeof info) {}
    }
  }
  long long wall = now_ms() - started;
  char stage = 0;
  if (read(setup[0], &stage, 1) != 1) stage = 0;
  /* Whatever the program left behind (forks, a new session) dies with it: we are alone in this PID namespace. */
  kill(-1, SIGKILL);
  while (waitpid(-1, NULL, 0) > 0) {}

  fprintf(report, "{\"exitCode\":%d,\"signal\":%d,\"wallMs\":%lld,\"wallExceeded\":%s,\"setupFailed\":\"%s\"}\n",
          WIFEXITED(status) ? WEXITSTATUS(status) : -1, WIFSIGNALED(status) ? WTERMSIG(status) : 0,
          wall, wall_exceeded ? "true" : "false", stage ? (char[]){ stage, 0 } : "");
  fclose(report);
  return 0;
}
