/*
 * Each run's /work (docs/judge.md "The container and its reset rules"): a tmpfs of its own, laid out before the
 * run and covered or unmounted before the reply ends (runner-layers.c), so nothing a program leaves there
 * (whatever its names' bytes, its depth or its count) reaches the next run, and its pages are uncharged by
 * then. Nothing is walked to empty it and no process is started: the kernel drops the whole file system.
 *
 * The judge stages a run's files on the host, in a directory bubblewrap binds read-only at /.stage; the
 * runner keeps it open and covers it (work_open), so no program can read it. Each file is bound read-only
 * into /work ('b': a program, an input; nothing is copied, and the program can neither change nor remove
 * it) or copied, writable ('c': sources a compile step may rename). After the run, the files the judge
 * asked for are read back here, never through a link or out of /work, and sent with the reply.
 */
#include "runner.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MAX_TAKEN 257
#define MAX_DEPTH 16

static int stage_fd = -1;

/* At the container's start: the stage kept open for the runner, then covered for everyone else. */
int work_open(void) {
  stage_fd = open("/.stage", O_PATH | O_DIRECTORY | O_CLOEXEC);
  return stage_fd < 0 || mount_tmpfs("/.stage", 1) != 0 ? -1 : 0;
}

/* Every directory above `path` under /work, made as needed (a file in the way fails). */
static int parents(int work, const char *path) {
  char prefix[4096];
  for (const char *slash = strchr(path, '/'); slash; slash = strchr(slash + 1, '/')) {
    size_t length = (size_t)(slash - path);
    if (length >= sizeof prefix) return -1;
    memcpy(prefix, path, length);
    prefix[length] = '\0';
    struct stat info;
    if (mkdirat(work, prefix, 0755) != 0 &&
        (errno != EEXIST || fstatat(work, prefix, &info, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR(info.st_mode)))
      return -1;
  }
  return 0;
}

static int copy(int work, const struct entry *e) {
  int from = openat(stage_fd, e->stage, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  int to = openat(work, e->path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  int ok = from >= 0 && to >= 0;
  ssize_t sent;
  layers_copied();
  while (ok && (sent = sendfile(to, from, NULL, 1 << 30)) != 0) ok = sent > 0 || errno == EINTR;
  ok = ok && fchmod(to, e->mode) == 0;
  if (from >= 0) close(from);
  if (to >= 0) close(to);
  return ok ? 0 : -1;
}

/* A read-only bind of the staged file onto an empty file in its place (open_tree and move_mount). */
static int bind(int work, const struct entry *e) {
  int target = openat(work, e->path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (target < 0) return -1;
  close(target);
  int tree = (int)syscall(SYS_open_tree, stage_fd, e->stage, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
  if (tree < 0) return -1;
  int moved = (int)syscall(SYS_move_mount, tree, "", work, e->path, MOVE_MOUNT_F_EMPTY_PATH);
  if (moved == 0) layers_pin(tree);
  close(tree);
  return moved;
}

static int place(int work, const struct entry *e) {
  if (parents(work, e->path) != 0) return -1;
  if (e->how == 'c') return copy(work, e);
  if (e->how == 'b') return bind(work, e);
  struct stat info;
  layers_copied();
  if (mkdirat(work, e->path, 0700) != 0 &&
      (errno != EEXIST || fstatat(work, e->path, &info, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR(info.st_mode)))
    return -1;
  return fchmodat(work, e->path, e->mode, 0);
}

/* The fresh /work given the request's files; -1 when they could not be laid out (stage 'w'). */
int work_prepare(const struct request *r) {
  int work = open("/work", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (work < 0) return -1;
  int ok = 1;
  for (int i = 0; ok && i < r->layout_count; i++) ok = place(work, &r->layout[i]) == 0;
  close(work);
  if (ok) layers_laid_out();
  return ok ? 0 : -1;
}

struct collection {
  struct taken *files;
  int count;
  long long bytes, max;
  dev_t device;
  int all;
  /* Regular files left out for a limit: the judge refuses a checker's build that lost any. */
  int dropped;
};

/* An open regular file of /work, kept if it fits; `fd` is closed when it does not. */
static void keep(struct collection *c, int fd, const char *path) {
  struct stat info = { 0 };
  int fits = fstat(fd, &info) == 0 && S_ISREG(info.st_mode) && info.st_dev == c->device && info.st_size <= c->max &&
             (!c->all || c->bytes + info.st_size <= c->max) && c->count < MAX_TAKEN;
  char *copy = fits ? strdup(path) : NULL;
  if (!copy) {
    c->dropped += S_ISREG(info.st_mode);
    close(fd);
    return;
  }
  c->files[c->count++] = (struct taken){ copy, fd, info.st_size, (info.st_mode & 0111) != 0 };
  c->bytes += info.st_size;
}

/* One file the judge named: beneath /work, through no link, no mount, and no other kind of file. */
static void take_one(struct collection *c, int work, const char *path) {
  struct open_how how = {
    .flags = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC,
    .resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV,
  };
  int fd = (int)syscall(SYS_openat2, work, path, &how, sizeof how);
  if (fd >= 0) keep(c, fd, path);
}

/* Every regular file under `dir` (a checker's build), bounded in depth, count and bytes. */
static void take_all(struct collection *c, int dir, const char *prefix, int depth) {
  DIR *listing = fdopendir(dup(dir));
  if (!listing) return;
  struct dirent *e;
  char path[4096];
  while ((e = readdir(listing)) && c->count < MAX_TAKEN) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    if ((size_t)snprintf(path, sizeof path, "%s%s", prefix, e->d_name) >= sizeof path - 1) continue;
    int fd = openat(dir, e->d_name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    struct stat info;
    if (fd < 0 || fstat(fd, &info) != 0) {
      if (fd >= 0) close(fd);
      continue;
    }
    if (S_ISDIR(info.st_mode) && depth < MAX_DEPTH && info.st_dev == c->device) {
      strcat(path, "/");
      take_all(c, fd, path, depth + 1);
      close(fd);
    } else {
      keep(c, fd, path);
    }
  }
  closedir(listing);
}

/* After the run (every process gone): the files asked for, open, with their sizes. */
int work_take(const struct request *r, struct taken **files, int *dropped) {
  static struct taken list[MAX_TAKEN];
  struct collection c = { list, 0, 0, r->take_max, 0, 0, 0 };
  *files = list;
  /* The root is the slot uid's, like the program, which may have taken its permissions away. */
  chmod("/work", 0755);
  int work = open("/work", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  struct stat info;
  *dropped = 0;
  if (work < 0 || fstat(work, &info) != 0) return 0;
  c.device = info.st_dev;
  for (int i = 0; i < r->take_count; i++) {
    c.all = strcmp(r->take[i], "*") == 0;
    if (c.all) take_all(&c, work, "", 0);
    else take_one(&c, work, r->take[i]);
  }
  close(work);
  *dropped = c.dropped;
  return c.count;
}

/* Each file as the reply carries it: u32 path length, the path, u8 executable, u32 size, the bytes. */
int work_send(struct taken *files, int count) {
  static char chunk[1 << 16];
  for (int i = 0; i < count; i++) {
    uint32_t length = (uint32_t)strlen(files[i].path), size = (uint32_t)files[i].size;
    uint8_t executable = (uint8_t)files[i].executable;
    if (write_full(1, &length, 4) || write_full(1, files[i].path, length) || write_full(1, &executable, 1) ||
        write_full(1, &size, 4))
      return -1;
    /* Nothing can write the file now; should it still read short, the promised size is kept. */
    for (long long at = 0; at < files[i].size;) {
      size_t want = files[i].size - at < (long long)sizeof chunk ? (size_t)(files[i].size - at) : sizeof chunk;
      ssize_t got = pread(files[i].fd, chunk, want, at);
      if (got <= 0) { memset(chunk, 0, want); got = (ssize_t)want; }
      if (write_full(1, chunk, (size_t)got)) return -1;
      at += got;
    }
  }
  return 0;
}

/* The files read back closed: nothing of the runner's holds /work open when its layer goes. */
void work_end(struct taken *files, int count) {
  for (int i = 0; i < count; i++) {
    close(files[i].fd);
    free(files[i].path);
  }
}
