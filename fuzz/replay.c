/* Runs a fuzz target's LLVMFuzzerTestOneInput over its corpus without
 * libFuzzer, so the normal test suite (and its ASan+UBSan pass) replays
 * every seed and every input that once crashed a parser. A target reports
 * a finding by aborting or by a sanitizer error; this driver only feeds
 * the files.
 *
 * usage: replay_TARGET FILE_OR_DIR...  (exit 0 after at least one input) */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "runtime/mem.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "replay: cannot open %s\n", path);
    return -1;
  }
  size_t cap = 4096, n = 0;
  uint8_t *buf = rt_mem_alloc(cap);
  size_t got;
  while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
    n += got;
    if (n == cap) {
      uint8_t *grown = rt_mem_realloc(buf, cap * 2);
      if (!grown) {
        rt_mem_free(buf);
        buf = NULL;
        break;
      }
      buf = grown;
      cap *= 2;
    }
  }
  fclose(f);
  if (!buf) {
    fprintf(stderr, "replay: out of memory reading %s\n", path);
    return -1;
  }
  /* An exact-size copy, so ASan sees a read past the input's end. */
  uint8_t *exact = rt_mem_alloc(n ? n : 1);
  if (!exact) {
    rt_mem_free(buf);
    return -1;
  }
  memcpy(exact, buf, n);
  rt_mem_free(buf);
  LLVMFuzzerTestOneInput(exact, n);
  rt_mem_free(exact);
  return 1;
}

static int replay(const char *path) {
  struct stat st;
  if (stat(path, &st) != 0) {
    fprintf(stderr, "replay: no such file or folder %s\n", path);
    return -1;
  }
  if (!S_ISDIR(st.st_mode)) return replay_file(path);
  DIR *d = opendir(path);
  if (!d) return -1;
  int count = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.') continue;
    char child[4096];
    snprintf(child, sizeof child, "%s/%s", path, e->d_name);
    int r = replay(child);
    if (r < 0) {
      count = -1;
      break;
    }
    count += r;
  }
  closedir(d);
  return count;
}

int main(int argc, char **argv) {
  int total = 0;
  for (int i = 1; i < argc; ++i) {
    int r = replay(argv[i]);
    if (r < 0) return 1;
    total += r;
  }
  printf("replayed %d inputs\n", total);
  return total > 0 ? 0 : 1;
}
