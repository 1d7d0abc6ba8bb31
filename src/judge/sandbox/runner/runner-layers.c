/*
 * The three file systems a run may write, /work, /tmp and /dev/shm (docs/judge.md "The container and its
 * reset rules"): each is a stack of tmpfs layers, and every run gets a fresh one on top, a new file system
 * with nothing of an earlier run's, not even its inode counter (an O_TMPFILE moves it without leaving a trace
 * a look could find; the next run would read it back as st_ino).
 *
 * The layer a run used is covered by the next one rather than unmounted when it certainly holds nothing the
 * run was charged for: as many free blocks and inodes as when the run started (an inode's extended
 * attributes count against the inodes) and no attribute on its root. An unmount waits out an expedited RCU
 * grace period, 0.15-0.6 ms on a 2-CPU VM whose other CPU is busy, three a run before (docs/benchmarks.md);
 * a mount costs ~25 us. A layer that holds anything is unmounted at once, with every mount on it, so its
 * pages are uncharged before the trailer, as before. Covered layers are unreachable: every process of the
 * run is gone, and a descriptor left in flight throws the container away (runner-reset.c).
 *
 * /work is covered only when the runner bound its files read-only and made nothing else there: a file it
 * copied or a directory it made could be replaced by the program with one charged to the run, leaving the
 * counts as they were. Its covered binds keep their staged files alive on the host, so /work is unmounted
 * when they would keep more than PINNED_MAX bytes (stage.ts gives the stage that much room beyond a run's).
 *
 * Every LAYERS_MAX runs the stacks go whole, all three in one unmount (detach_all). The depth a run sees (a
 * program can count the layers in /proc/self/mountinfo) is set by the count of runs alone: a layer unmounted
 * after a run is replaced by two, so what an earlier program did cannot move it.
 */
#include "runner.h"
#include <fcntl.h>
#include <stdio.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <unistd.h>

#define LAYERS_MAX 32
#define PINNED_MAX (16LL << 20)
#define PINS_MAX 64

enum { WORK, TMP, SHM, STACKS };
static const char *const WHERE[STACKS] = { "/work", "/tmp", "/dev/shm" };

struct stack {
  /* The bottom layer's root (O_PATH): the whole stack moves through it (detach_all). */
  int base;
  int depth;
  /* The top layer as the run found it. */
  unsigned long long free_blocks, free_inodes;
};
static struct stack stacks[STACKS] = { { -1, 0, 0, 0 }, { -1, 0, 0, 0 }, { -1, 0, 0, 0 } };
/* Runs since the stacks were last made anew. */
static int runs;
/* Whether this run's /work holds only files bound read-only. */
static int work_plain;

/* Staged files the binds of covered /work layers keep alive (first `kept`), then this run's. */
static struct {
  dev_t dev;
  ino_t ino;
  long long size;
} pins[PINS_MAX];
static int kept, pinned_count;
static long long pinned;

static int look(int which) {
  struct statfs now;
  if (statfs(WHERE[which], &now) != 0) return -1;
  stacks[which].free_blocks = now.f_bfree;
  stacks[which].free_inodes = now.f_ffree;
  return 0;
}

static int untouched(int which) {
  struct statfs now;
  return statfs(WHERE[which], &now) == 0 && now.f_bfree == stacks[which].free_blocks &&
         now.f_ffree == stacks[which].free_inodes && llistxattr(WHERE[which], NULL, 0) == 0;
}

/* A fresh layer on top (the bottom one when the stack is empty). */
static int push(int which) {
  struct stack *s = &stacks[which];
  char options[64];
  snprintf(options, sizeof options, "size=%lld,mode=%s", tmp_bytes, which == WORK ? "0755" : "1777");
  if (mount("tmpfs", WHERE[which], "tmpfs", MS_NOSUID | MS_NODEV | MS_NOATIME, options) != 0) return -1;
  if (s->depth++ == 0 && (s->base = open(WHERE[which], O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0) return -1;
  if (which == WORK) work_plain = 1;
  return look(which);
}

/* The top layer unmounted, with every mount on it: its pages are freed (and uncharged) on return. */
static int pop(int which) {
  struct stack *s = &stacks[which];
  if (umount2(WHERE[which], MNT_DETACH) != 0) return -1;
  if (--s->depth == 0) {
    close(s->base);
    s->base = -1;
  }
  if (which == WORK) pinned_count = kept;
  return 0;
}

/* Every stack in one unmount. A path always resolves to a stack's top layer (umount2 follows mounts down),
   so the stacks are first moved whole, through their bottom layers' descriptors, into a holder mounted for
   the moment over the covered /.stage, and the holder is unmounted with all it holds. */
static int detach_all(void) {
  if (mount_tmpfs("/.stage", 0) != 0) return -1;
  int holder = open("/.stage", O_RDONLY | O_DIRECTORY | O_CLOEXEC), ok = holder >= 0;
  for (int which = 0; ok && which < STACKS; which++) {
    struct stack *s = &stacks[which];
    char name[2] = { (char)('0' + which), 0 };
    ok = mkdirat(holder, name, 0700) == 0 &&
         syscall(SYS_move_mount, s->base, "", holder, name, MOVE_MOUNT_F_EMPTY_PATH) == 0;
    if (ok) {
      close(s->base);
      *s = (struct stack){ -1, 0, 0, 0 };
    }
  }
  if (holder >= 0) close(holder);
  kept = pinned_count = 0;
  pinned = 0;
  return umount2("/.stage", MNT_DETACH) == 0 && ok ? 0 : -1;
}

int layers_open(void) {
  for (int which = 0; which < STACKS; which++)
    if (push(which) != 0) return -1;
  return 0;
}

void layers_laid_out(void) {
  if (look(WORK) != 0) work_plain = 0;
}

void layers_copied(void) {
  work_plain = 0;
}

/* A staged file this run's /work binds (an open descriptor of it). */
void layers_pin(int fd) {
  struct stat info;
  if (fstat(fd, &info) != 0 || pinned_count == PINS_MAX) {
    work_plain = 0;
    return;
  }
  for (int i = 0; i < pinned_count; i++)
    if (pins[i].dev == info.st_dev && pins[i].ino == info.st_ino) return;
  pins[pinned_count++] = (typeof(pins[0])){ info.st_dev, info.st_ino, info.st_size };
}

/* Whether this run's pins fit beside those kept: then they are kept. */
static int keep_pins(void) {
  long long more = 0;
  for (int i = kept; i < pinned_count; i++) more += pins[i].size;
  if (pinned + more > PINNED_MAX) return 0;
  pinned += more;
  kept = pinned_count;
  return 1;
}

static int next_layer(int which) {
  int clean = untouched(which) && (which != WORK || (work_plain && keep_pins()));
  if (clean) return push(which);
  return pop(which) == 0 && push(which) == 0 && push(which) == 0 ? 0 : -1;
}

/* After a run, every process of it gone: each stack's next layer; -1 when one could not be made. */
int layers_renew(void) {
  if (++runs < LAYERS_MAX) {
    for (int which = 0; which < STACKS; which++)
      if (next_layer(which) != 0) return -1;
    return 0;
  }
  runs = 0;
  return detach_all() == 0 ? layers_open() : -1;
}
