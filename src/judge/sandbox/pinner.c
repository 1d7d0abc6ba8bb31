/*
 * The toolchain pinner: keeps the files the language runtimes run from (the JDK's lib/, Python's standard
 * library, node, the C libraries) mapped and locked in memory for as long as its judge lives, so their page
 * cache is charged to the judge's cgroup, never to a slot's (docs/config-reference.md "What memory counts").
 *
 * Without it, whichever cgroup first faulted a page in paid for it: a Java a + b was billed 18 MB when the
 * JDK was already cached by someone else and 81 MB when its run faulted the JDK in, and a program could
 * choose which for the next run with posix_fadvise(POSIX_FADV_DONTNEED) on the JDK's files. A page that is
 * mapped is never dropped by that call, and a locked one not by the kernel's reclaim either.
 *
 *   pinner   (paths on stdin, one a line, ended by an empty line; stdin's end then ends the pinner)
 *
 * Answers one line on stdout: "pinned FILES BYTES LOCKED" (LOCKED 0 when mlock was refused: the pages are
 * then mapped and touched, safe from fadvise, but not from the kernel's reclaim under memory pressure).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

int main(void) {
  /* The judge's death is this process's: the pages are the judge's to hold, and no one else's. */
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() == 1) return 1;
  char path[4096];
  long long bytes = 0;
  int files = 0, locked = 1;
  while (fgets(path, sizeof path, stdin) && path[0] != '\n') {
    path[strcspn(path, "\n")] = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    struct stat st;
    if (fd < 0) continue;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0) {
      close(fd);
      continue;
    }
    void *at = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
    close(fd);
    if (at == MAP_FAILED) continue;
    if (mlock(at, (size_t)st.st_size) != 0) {
      locked = 0;
      /* Mapped and touched page by page: resident, and mapped pages are kept from fadvise's drop. */
      volatile const char *page = at;
      for (off_t off = 0; off < st.st_size; off += 4096) (void)page[off];
    }
    files++;
    bytes += st.st_size;
  }
  printf("pinned %d %lld %d\n", files, bytes, locked);
  fflush(stdout);
  char rest[256];
  while (read(0, rest, sizeof rest) > 0) {}
  return 0;
}
