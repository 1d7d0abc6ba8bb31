/*
 * Reading a request (runner.c's header has the wire format): NUL-terminated fields, checked for count and
 * shape before anything is run. A request the runner cannot read ends the container: the judge wrote it,
 * so it is the judge's fault, and a new container is started for the next run.
 */
#include "runner.h"
#include <stdlib.h>
#include <string.h>

#define MAX_FIELDS 8192

/* A whole number in [0, max], or -1. */
static long long number(const char *text, long long max) {
  char *end;
  long long value = strtoll(text, &end, 10);
  return *text && !*end && value >= 0 && value <= max ? value : -1;
}

/* A path under /work the judge names: relative, no empty, "." or ".." part (the runner is its own check). */
static int relative(const char *path) {
  if (!*path || *path == '/') return 0;
  for (const char *part = path;;) {
    const char *slash = strchr(part, '/');
    size_t length = slash ? (size_t)(slash - part) : strlen(part);
    if (length == 0 || (length == 1 && part[0] == '.') || (length == 2 && part[0] == '.' && part[1] == '.'))
      return 0;
    if (!slash) return 1;
    part = slash + 1;
  }
}

/* Fills `r` from `body` (its fields point into it); 0, or -1 for a request that does not read. */
int parse_request(char *body, unsigned length, struct request *r) {
  /* Static: one request at a time, and nothing to free between them. */
  static char *f[MAX_FIELDS + 1], *peer[MAX_FIELDS + 1];
  static struct entry layout[MAX_FIELDS / 4 + 1];
  int count = 0;
  for (unsigned at = 0; at < length; at += (unsigned)strlen(body + at) + 1) {
    if (count == MAX_FIELDS) return -1;
    f[count++] = body + at;
  }
  f[count] = NULL;
  memset(r, 0, sizeof *r);
  int i = 0;
  const long long big = 1LL << 50;
  if (count > 0 && strcmp(f[0], "pair") == 0) {
    if (count < 6) return -1;
    long long argc = number(f[4], count - 5);
    if (argc < 1) return -1;
    r->peer_cpu_ms = number(f[1], big);
    r->peer_memory_kb = number(f[2], big);
    r->peer_dir = f[3];
    if (r->peer_cpu_ms < 0 || r->peer_memory_kb < 0 || *r->peer_dir != '/') return -1;
    memcpy(peer, f + 5, (size_t)argc * sizeof *peer);
    peer[argc] = NULL;
    r->peer_argv = peer;
    i = 5 + (int)argc;
  }
  if (count - i < 10) return -1;
  long long *numbers[] = { &r->wall_ms, &r->cpu_ms, &r->stack_kb, &r->file_bytes, &r->processes };
  for (int n = 0; n < 5; n++)
    if ((*numbers[n] = number(f[i++], big)) < 0) return -1;
  long long keep_out = number(f[i++], big), keep_err = number(f[i++], big);
  if (keep_out < 0 || keep_err < 0) return -1;
  r->keep_out = (size_t)keep_out;
  r->keep_err = (size_t)keep_err;
  r->stdin_path = f[i++];
  if (strcmp(r->stdin_path, "-") != 0 && !relative(r->stdin_path)) return -1;
  i++;
  long long entries = number(f[i - 1], (count - i) / 4);
  if (entries < 0) return -1;
  r->layout_count = (int)entries;
  r->layout = layout;
  for (int e = 0; e < r->layout_count; e++, i += 4) {
    struct entry *entry = &r->layout[e];
    entry->how = f[i][0];
    entry->stage = f[i + 1];
    entry->path = f[i + 2];
    long long mode = strtoll(f[i + 3], NULL, 8);
    entry->mode = (unsigned)(mode & 07777);
    if (!strchr("bcd", entry->how) || f[i][1] || !relative(entry->path)) return -1;
    if (entry->how != 'd' && (!*entry->stage || strchr(entry->stage, '/'))) return -1;
  }
  if (count - i < 3) return -1;
  r->take_max = number(f[i++], big);
  i++;
  long long takes = number(f[i - 1], count - i - 1);
  if (r->take_max < 0 || takes < 0) return -1;
  r->take_count = (int)takes;
  r->take = (const char **)(f + i);
  for (int t = 0; t < r->take_count; t++)
    if (strcmp(r->take[t], "*") != 0 && !relative(r->take[t])) return -1;
  i += r->take_count;
  if (i >= count) return -1;
  r->argv = f + i;
  return 0;
}
