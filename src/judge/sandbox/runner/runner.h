/*
 * What the runner's files share (runner.c: the request loop and one program's run; runner-request.c: reading
 * a request; runner-work.c: each run's /work, laid out before and read back after; runner-sandbox.c: how a
 * process is started and its output read; runner-spare.c: the next program's process, made ahead;
 * runner-layers.c: the layers of /work, /tmp and /dev/shm; runner-reset.c: what is checked and reset after
 * a run, and the reply; runner-sysv.c: SysV IPC between runs; runner-seccomp.c: the filter; runner-pair.c:
 * a program and its interactor).
 */
#ifndef JOJ_RUNNER_H
#define JOJ_RUNNER_H
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>

/* One entry of a run's /work: a staged file bound read-only ('b') or copied writable ('c'), or a directory
   ('d'). STAGE names the file in the judge's stage directory; PATH is where it goes under /work. */
struct entry {
  char how;
  const char *stage;
  const char *path;
  unsigned mode;
};

/* A request, as runner-request.c reads it (runner.c's header has the wire format). */
struct request {
  long long wall_ms, cpu_ms, stack_kb, file_bytes, processes;
  size_t keep_out, keep_err;
  /* A file under /work fed to stdin, or "-" for none. */
  const char *stdin_path;
  struct entry *layout;
  int layout_count;
  /* Files to read back from /work after the run ("*": every regular file), each at most take_max bytes. */
  const char **take;
  int take_count;
  long long take_max;
  char **argv;
  /* An interactive case's interactor (runner-pair.c), or peer_argv NULL. */
  char **peer_argv;
  long long peer_cpu_ms, peer_memory_kb;
  const char *peer_dir;
};

/* How one process is started: its descriptors, its limits, the cgroup it joins, its directory. */
struct launch {
  char **argv;
  int in, out, err;
  long long cpu_ms, stack_kb, file_bytes, processes;
  /* RLIMIT_AS in KiB, 0 for none: a process outside the run's cgroup (an interactor) has only this. */
  long long address_kb;
  /* "5,6" (cgroup.procs or tasks descriptors to join), or NULL to stay in the runner's group. */
  const char *cgroup_fds;
  /* Where it starts. */
  const char *dir;
  /* SIGPIPE ignored (kept across exec): an interactor whose program has gone reads an end of file next,
     and gives its verdict, instead of dying of its last write. */
  int ignore_sigpipe;
};

/* An output pipe: the first `keep` bytes kept, every byte counted. */
struct stream {
  int fd;
  char *data;
  size_t kept, keep;
  long long total;
};

/* What the program may not change for the next run; compared after every run. */
struct pristine {
  struct rlimit limits[RLIM_NLIMITS];
  int priority;
  int policy;
  cpu_set_t cpus;
  sigset_t mask;
  int autogroup;
};

/* How a run went, as the reply's JSON says it. */
struct outcome {
  int ended, status, wall_exceeded, exceeded;
  long long wall;
  char stage;
};

/* A file read back from /work after a run (runner-work.c). */
struct taken {
  char *path;
  int fd;
  long long size;
  int executable;
};

extern long long tmp_bytes;
extern int setup_pipe;

long long now_ms(void);
int read_full(int fd, void *buffer, size_t size);
int write_full(int fd, const void *buffer, size_t size);
void setup_failed(char stage) __attribute__((noreturn));
int build_seccomp(void);
int install_seccomp(void);
void launch(const struct launch *l) __attribute__((noreturn));
void launch_limits(const struct launch *l);
void launch_exec(const struct launch *l) __attribute__((noreturn));
struct launch program_of(const struct request *r, const char *cgroup_fds, int out, int err);
int program_input(const struct request *r);
int mount_tmpfs(const char *where, int read_only);
int own_proc(void);
int seal_proc(void);
int remember_pid_counter(void);
int own_sysv(void);
int reset_sysv(void);
int table_rows(const char *path);
void observe(struct pristine *p);
int stream_pair(int ends[2]);
int stream_adopt(struct stream *s, int fd, size_t keep);
int stream_open(struct stream *s, int ends[2], size_t keep);
int pump(struct stream *s, long long limit, int *exceeded);
void drain(struct stream *s, long long limit, int *exceeded);
void kill_and_reap(pid_t watched, struct outcome *o);
char read_stage(int fd);
int parse_request(char *body, unsigned length, struct request *r);
int work_open(void);
int work_prepare(const struct request *r);
int work_take(const struct request *r, struct taken **files, int *dropped);
int work_send(struct taken *files, int count);
void work_end(struct taken *files, int count);
int layers_open(void);
void layers_laid_out(void);
void layers_copied(void);
void layers_pin(int fd);
int layers_renew(void);
int reply(const struct request *r, const struct outcome *o, struct stream *out, struct stream *err,
          const char *extra, struct stream *more, const struct pristine *before);
int maker_start(void);
/* Below this memory limit (KiB) a run forks rather than use the spare (runner-spare.c). */
#define SPARE_MIN_KB (16 * 1024)
int maker_tasks(void);
int maker_follow_ipc(void);
int spare_make(const char *cgroup_fds);
pid_t spare_start(const struct request *r, int *out, int *err, int *setup);
void spare_go(int laid);
void spare_drop(void);
int serve_pair(const struct request *r, int sigfd, const char *cgroup_fds, const struct pristine *before);

#endif
