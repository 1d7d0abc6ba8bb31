/*
 * The seccomp filter every program and interactor runs under (runner.h): built once when the container
 * starts, loaded by each spare (runner-spare.c) or process before exec.
 */
#include "runner.h"
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Denied with EPERM: other processes' memory and descriptors, and kernel surface no submission needs. */
static const char *const DENIED[] = {
  "ptrace", "process_vm_readv", "process_vm_writev", "pidfd_getfd", "pidfd_open", "kcmp",
  "bpf", "userfaultfd", "perf_event_open", "keyctl", "add_key", "request_key",
  "mount", "umount2", "pivot_root", "chroot", "move_mount", "open_tree", "fsopen", "fsconfig", "fsmount", "fspick",
  "mount_setattr", "swapon", "swapoff", "reboot", "kexec_load", "kexec_file_load",
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
   each run would pay again), then loaded by each spare (runner-spare.c) or program's fork before exec. */
static struct sock_fprog filter;

int build_seccomp(void) {
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
  /* No network: Unix sockets and socket pairs only (runtimes use them among their own threads). An Internet,
     netlink, packet or vsock socket could leave ports, connections and counters for the next run, and park
     buffers outside the run's memory limit; refused, so the program sees a clear EPERM. */
  if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(socket), 1, SCMP_A0(SCMP_CMP_NE, AF_UNIX)) != 0 ||
      seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(socketpair), 1, SCMP_A0(SCMP_CMP_NE, AF_UNIX)) != 0)
    goto fail;
  /* New namespaces: clone with CLONE_NEW* flags; clone3 hides its flags in memory, so it says ENOSYS
     and the C library falls back to clone. */
  if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
                       SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_NEWUSER, CLONE_NEWUSER)) != 0) goto fail;
  if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0) != 0) goto fail;
  /* unshare: a cgroup namespace only, which a spare makes after its filter is on (runner-spare.c) and a
     program, without capabilities, cannot. Every other namespace, a user one above all, is refused. */
  if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(unshare), 1, SCMP_A0(SCMP_CMP_NE, CLONE_NEWCGROUP)) != 0)
    goto fail;
  /* setns: into an IPC namespace only, which the spares' maker does (runner-spare.c) and a program, without
     capabilities, cannot. */
  if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(setns), 1, SCMP_A1(SCMP_CMP_NE, CLONE_NEWIPC)) != 0)
    goto fail;
  /* Another architecture's system calls (int 0x80, x32) would dodge the list: they kill the program. */
  if (seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS) != 0) goto fail;
  /* A binary tree of the calls rather than a list: loading it costs half as much (the kernel works out, for
     every call, whether the filter always allows it, walking it with interrupts off; docs/benchmarks.md). */
  seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);
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

int install_seccomp(void) {
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return -1;
  return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &filter);
}

