/*
 * SysV IPC between runs (runner.c's header has the rules): the namespace the runs share, made by the runner,
 * and made anew after a run that made an object.
 */
#include "runner.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <unistd.h>

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
int reset_sysv(void) {
  if (next_ids_untouched()) return 0;
  for (int t = 0; t < 3; t++) {
    int left = table_rows(SYSV_TABLES[t]);
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
  /* The spares' maker (runner-spare.c), a thread of the runner's, follows it into the new namespace. */
  if (unshare(CLONE_NEWIPC) != 0 || maker_follow_ipc() != 0) return -1;
  return arm_next_ids();
}

