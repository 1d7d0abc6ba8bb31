/*
 * An interactive case: the program and the problem's interactor run at once, each one's stdout the other's
 * stdin (docs/config-reference.md "Interactive problems"). The request is the interactor's fields, then the program's:
 *
 *   pair CPU_MS MEMORY_KB DIR ARGC INTERACTOR [ARG...]  WALL_MS CPU_MS STACK_KB ... PROGRAM [ARG...]
 *
 * The program is hostile and the interactor holds the case's secrets (its input), so they are kept apart:
 * - the program runs under a keeper, the init of a PID, mount and IPC namespace of its own: it cannot see,
 *   signal or read the interactor's process, and the interactor's directory (DIR, under /work) is covered
 *   there by an empty read-only tmpfs; its /tmp and /dev/shm are fresh ones that end with it;
 * - the interactor stays in the container's namespaces, outside the run's cgroup (the program's time and
 *   memory are the program's alone), held by its own limits: CPU_MS of CPU and MEMORY_KB of address space.
 *   It ignores SIGPIPE: when the program has gone, its next write fails and its next read ends, and it
 *   gives its verdict rather than dying of the write.
 *
 * Which of the two ended first decides a verdict (a wrong answer makes the program's next write fail; a
 * crash makes the interactor read an early end of file), and it is recorded without a race: each side has
 * a waiter that holds its side's ends of both pipes until it has written the end to one ordered pipe. The
 * other side cannot notice the end (an end of file, a broken pipe) before it is recorded, so a consequence
 * is always recorded after its cause. The reply's JSON adds "peer" (the interactor's end, CPU time, memory
 * and stderr size, and whether the program ended) and "peerFirst"; the interactor's kept stderr follows the
 * program's.
 */
#include "runner.h"
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* One side's end, as its waiter records it in the ordered pipe (one write, smaller than PIPE_BUF). */
struct ending {
  char who; /* 'P' the program, 'I' the interactor */
  int status;
  long long cpu_ms, memory_kb;
};

static void record(int ends, char who, int status, const struct rusage *usage) {
  struct ending e = { who, status, 0, 0 };
  if (usage) {
    e.cpu_ms = (usage->ru_utime.tv_sec + usage->ru_stime.tv_sec) * 1000LL +
               (usage->ru_utime.tv_usec + usage->ru_stime.tv_usec) / 1000;
    e.memory_kb = usage->ru_maxrss;
  }
  if (write(ends, &e, sizeof e) < 0) {}
}

/* In the program's keeper: a view of its own (processes, /tmp, /dev/shm), the interactor's directory hidden. */
static int private_view(const char *hidden) {
  return own_proc() || seal_proc() || mount_tmpfs("/tmp", 0) || mount_tmpfs("/dev/shm", 0) || mount_tmpfs(hidden, 1);
}

int serve_pair(const struct request *r, int sigfd, const char *cgroup_fds, const struct pristine *before) {
  long long wall_ms = r->wall_ms, file_bytes = r->file_bytes;
  const char *dir = r->peer_dir;
  /* to_program: the interactor writes, the program reads; from_program the other way. */
  struct stream out = { -1, NULL, 0, 0, 0 }, err = out, peer_err = out;
  struct outcome o = { 0 };
  /* Its processes start their own way: the spare would be left beside them. */
  spare_drop();
  if (work_prepare(r) != 0) {
    o.stage = 'w';
    return reply(r, &o, &out, &err, ",\"peer\":null", &peer_err, before);
  }
  int to_program[2], from_program[2], err_pipe[2], peer_err_pipe[2], setup[2], peer_setup[2], ends[2];
  if (stream_open(&err, err_pipe, r->keep_err) || stream_open(&peer_err, peer_err_pipe, r->keep_err) ||
      pipe2(to_program, O_CLOEXEC) || pipe2(from_program, O_CLOEXEC) || pipe2(setup, O_CLOEXEC) ||
      pipe2(peer_setup, O_CLOEXEC) || pipe2(ends, O_CLOEXEC))
    return 0;

  long long started = now_ms();
  /* The keeper: PID 1 of the program's namespaces, a direct child of the runner. */
  pid_t keeper = (pid_t)syscall(SYS_clone, CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWIPC | SIGCHLD, NULL, NULL, NULL, NULL);
  if (keeper < 0) return 0;
  if (keeper == 0) {
    setup_pipe = setup[1];
    close(to_program[1]);
    close(from_program[0]);
    close(peer_err_pipe[1]);
    if (private_view(dir) != 0) setup_failed('n');
    pid_t program = fork();
    if (program < 0) setup_failed('n');
    if (program == 0) {
      struct launch l = {
        .argv = r->argv, .in = to_program[0], .out = from_program[1], .err = err_pipe[1],
        .cpu_ms = r->cpu_ms, .stack_kb = r->stack_kb, .file_bytes = file_bytes,
        /* The runner, the keeper, the interactor and its waiter share the uid's process count. */
        .processes = r->processes + 4 + maker_tasks(), .address_kb = 0, .cgroup_fds = cgroup_fds, .dir = "/work",
      };
      launch(&l);
    }
    close(err_pipe[1]);
    int st;
    pid_t done;
    while ((done = waitpid(-1, &st, 0)) != program)
      if (done < 0 && errno != EINTR) _exit(1);
    record(ends[1], 'P', st, NULL);
    _exit(0);
  }
  pid_t waiter = fork();
  if (waiter < 0) return 0;
  if (waiter == 0) {
    setup_pipe = peer_setup[1];
    close(to_program[0]);
    close(from_program[1]);
    close(err_pipe[1]);
    pid_t interactor = fork();
    if (interactor < 0) setup_failed('n');
    if (interactor == 0) {
      long long memory_kb = r->peer_memory_kb;
      struct launch l = {
        .argv = r->peer_argv, .in = from_program[0], .out = to_program[1], .err = peer_err_pipe[1],
        .cpu_ms = r->peer_cpu_ms, .stack_kb = memory_kb, .file_bytes = file_bytes,
        .processes = r->processes + 4 + maker_tasks(), .address_kb = memory_kb, .cgroup_fds = NULL, .dir = dir,
        .ignore_sigpipe = 1,
      };
      launch(&l);
    }
    close(peer_err_pipe[1]);
    int st;
    struct rusage usage;
    while (wait4(interactor, &st, 0, &usage) < 0)
      if (errno != EINTR) _exit(1);
    record(ends[1], 'I', st, &usage);
    _exit(0);
  }
  int mine[] = { to_program[0], to_program[1], from_program[0], from_program[1], err_pipe[1], peer_err_pipe[1],
                 setup[1], peer_setup[1], ends[1] };
  for (size_t i = 0; i < sizeof mine / sizeof *mine; i++) close(mine[i]);

  /* Until both waiters are gone (each records its side's end first), the wall clock, or a flood. */
  int keeper_done = 0, waiter_done = 0, peer_exceeded = 0;
  while (!(keeper_done && waiter_done)) {
    long long left = wall_ms - (now_ms() - started);
    if (left < 0) { o.wall_exceeded = 1; break; }
    struct pollfd fds[3] = { { sigfd, POLLIN, 0 }, { err.fd, POLLIN, 0 }, { peer_err.fd, POLLIN, 0 } };
    if (poll(fds, 3, left > 1000 ? 1000 : (int)left + 1) < 0 && errno != EINTR) break;
    if (err.fd >= 0 && fds[1].revents && !pump(&err, file_bytes, &o.exceeded)) { close(err.fd); err.fd = -1; }
    if (peer_err.fd >= 0 && fds[2].revents && !pump(&peer_err, file_bytes, &peer_exceeded)) {
      close(peer_err.fd);
      peer_err.fd = -1;
    }
    if (o.exceeded || peer_exceeded) break;
    if (fds[0].revents) {
      struct signalfd_siginfo info;
      while (read(sigfd, &info, sizeof info) == sizeof info) {}
    }
    int st;
    pid_t done;
    while ((done = waitpid(-1, &st, WNOHANG)) > 0) {
      keeper_done |= done == keeper;
      waiter_done |= done == waiter;
    }
  }
  o.wall = now_ms() - started;
  kill_and_reap(-1, &o);
  drain(&err, file_bytes, &o.exceeded);
  drain(&peer_err, file_bytes, &peer_exceeded);
  o.stage = read_stage(setup[0]);
  char peer_stage = read_stage(peer_setup[0]);

  /* The ends in the order they happened; a side with none was still running when the run was stopped. */
  struct ending got[2], program = { 0, 0, 0, 0 }, interactor = { 0, 0, 0, 0 };
  int first = 0;
  ssize_t bytes = read(ends[0], got, sizeof got);
  close(ends[0]);
  for (int i = 0; i < (int)(bytes > 0 ? bytes / (ssize_t)sizeof *got : 0); i++) {
    if (got[i].who == 'P') program = got[i];
    if (got[i].who == 'I') interactor = got[i];
    if (i == 0) first = got[i].who;
  }
  o.ended = program.who == 'P';
  o.status = program.status;
  int peer_ended = interactor.who == 'I', st = interactor.status;
  char extra[512];
  snprintf(extra, sizeof extra,
           ",\"peer\":{\"ended\":%s,\"exitCode\":%d,\"signal\":%d,\"cpuMs\":%lld,\"memoryKb\":%lld,"
           "\"setupFailed\":\"%s\",\"outputExceeded\":%s,\"stderrBytes\":%lld,\"stderrKept\":%zu,"
           "\"programEnded\":%s},\"peerFirst\":%s",
           peer_ended ? "true" : "false", peer_ended && WIFEXITED(st) ? WEXITSTATUS(st) : -1,
           peer_ended && WIFSIGNALED(st) ? WTERMSIG(st) : (peer_ended ? 0 : SIGKILL), interactor.cpu_ms,
           interactor.memory_kb, peer_stage ? (char[]){ peer_stage, 0 } : "", peer_exceeded ? "true" : "false",
           peer_err.total, peer_err.kept, o.ended ? "true" : "false", first == 'I' ? "true" : "false");
  return reply(r, &o, &out, &err, extra, &peer_err, before);
}
