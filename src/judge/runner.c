/*
 * The judge's in-sandbox runner: started by bwrap as the sandbox's main process, it runs one program
 * under resource limits and reports what happened, measured by the kernel (wait4), on fd 3.
 *
 *   runner CPU_MS WALL_MS MEMORY_KB FILE_BYTES PROCESSES STDIN STDOUT STDERR -- PROGRAM [ARG...]
 *
 * STDIN is a path or "-" (empty input); STDOUT/STDERR are created fresh (never through a link).
 * The program gets no descriptor beyond 0-2, its own process group, and is killed with everything it
 * started when it exits or runs out of wall time.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void limit(int resource, rlim_t value) {
  struct rlimit rl = { value, value };
  if (setrlimit(resource, &rl) != 0) _exit(121);
}

static int open_output(const char *path) {
  return open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
}

int main(int argc, char **argv) {
  if (argc < 11 || strcmp(argv[9], "--") != 0) {
    fprintf(stderr, "usage: runner CPU_MS WALL_MS MEMORY_KB FILE_BYTES PROCESSES STDIN STDOUT STDERR -- PROGRAM [ARG...]\n");
    return 120;
  }
  long long cpu_ms = atoll(argv[1]), wall_ms = atoll(argv[2]), memory_kb = atoll(argv[3]);
  long long file_bytes = atoll(argv[4]), processes = atoll(argv[5]);
  FILE *report = fdopen(3, "w");
  if (!report) return 122;
  fcntl(3, F_SETFD, FD_CLOEXEC);

  long long started = now_ms();
  pid_t pid = fork();
  if (pid < 0) return 123;
  if (pid == 0) {
    setpgid(0, 0);
    int in = strcmp(argv[6], "-") == 0 ? open("/dev/null", O_RDONLY) : open(argv[6], O_RDONLY | O_NOFOLLOW);
    int out = open_output(argv[7]);
    int err = open_output(argv[8]);
    if (in < 0 || out < 0 || err < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0) _exit(124);
    syscall(SYS_close_range, 3, ~0U, 0);
    /* CPU: the soft limit sends SIGXCPU one second past the budget (the judge compares exact times). */
    struct rlimit cpu = { (rlim_t)(cpu_ms / 1000 + 1), (rlim_t)(cpu_ms / 1000 + 2) };
    setrlimit(RLIMIT_CPU, &cpu);
    /* Address space: the memory budget plus headroom for the loader and runtimes; the verdict uses peak RSS. */
    limit(RLIMIT_AS, (rlim_t)(memory_kb + 65536) * 1024);
    limit(RLIMIT_STACK, (rlim_t)memory_kb * 1024);
    limit(RLIMIT_FSIZE, (rlim_t)file_bytes);
    limit(RLIMIT_NPROC, (rlim_t)processes);
    limit(RLIMIT_CORE, 0);
    execvp(argv[10], argv + 10);
    _exit(125);
  }

  int status = 0;
  struct rusage usage;
  memset(&usage, 0, sizeof usage);
  int wall_exceeded = 0;
  for (;;) {
    pid_t done = wait4(pid, &status, WNOHANG, &usage);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) return 126;
    if (now_ms() - started > wall_ms) {
      wall_exceeded = 1;
      kill(-pid, SIGKILL);
      kill(pid, SIGKILL);
      wait4(pid, &status, 0, &usage);
      break;
    }
    usleep(2000);
  }
  long long wall = now_ms() - started;
  /* Whatever the program left behind (forks, a new session) dies with it: we are alone in this PID namespace. */
  kill(-1, SIGKILL);
  while (waitpid(-1, NULL, 0) > 0) {}

  long long cpu = (long long)usage.ru_utime.tv_sec * 1000 + usage.ru_utime.tv_usec / 1000
                + (long long)usage.ru_stime.tv_sec * 1000 + usage.ru_stime.tv_usec / 1000;
  fprintf(report, "{\"exitCode\":%d,\"signal\":%d,\"cpuMs\":%lld,\"wallMs\":%lld,\"memoryKb\":%ld,\"wallExceeded\":%s}\n",
          WIFEXITED(status) ? WEXITSTATUS(status) : -1, WIFSIGNALED(status) ? WTERMSIG(status) : 0,
          cpu, wall, usage.ru_maxrss, wall_exceeded ? "true" : "false");
  fclose(report);
  return 0;
}
