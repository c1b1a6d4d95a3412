/*
 * Replays the saved fuzz corpora through the fuzz targets' entry points,
 * without libFuzzer (librdkafka's WITH_MAIN idea): every `make check` runs
 * every file of tests/fuzz/corpus/<target>/ and prints TAP, one line per
 * target. A crash or a failed GR_FUZZ_CHECK() kills the run; the "# <file>"
 * line printed before each input names the culprit.
 *
 *   replay                      every target, corpus under $top_srcdir
 *   replay -d DIR               corpora under DIR/<target>/
 *   replay TARGET FILE...       the given files (crash reproduction)
 *
 * GR_FUZZ_VERBOSE=1 shows the broker's log lines and every file name.
 */
#include "fuzz.h"

#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>

typedef int (*target_fn)(const uint8_t *data, size_t n);

/* extra: files elsewhere in the tree that are inputs of the target too
 * (a pattern under top_srcdir) */
static const struct {
    const char *name;
    target_fn fn;
    const char *extra;
} targets[] = {
    { "request", gr_fuzz_request, "tests/data/wire/*/*.req.bin" },
    { "records", gr_fuzz_records, NULL },
    { "compress", gr_fuzz_compress, NULL },
    { "segment", gr_fuzz_segment, NULL },
    { "broker", gr_fuzz_broker, NULL },
    { "otlp", gr_fuzz_otlp, NULL },
    { "fsess", gr_fuzz_fsess, NULL },
    { "http", gr_fuzz_http, NULL },
    { "oauth", gr_fuzz_oauth, NULL },
    { "sasl", gr_fuzz_sasl, NULL },
    { "meta", gr_fuzz_meta, NULL },
    { "epochs", gr_fuzz_epochs, NULL },
    { "replica", gr_fuzz_replica, NULL },
    { "acl_zk", gr_fuzz_acl_zk, NULL },
};
#define NTARGETS (int)(sizeof targets / sizeof targets[0])

static bool verbose;

/* Runs one file; -1 if it cannot be read. */
static int
run_file(target_fn fn, const char *path)
{
    FILE *f = fopen(path, "rb");
    uint8_t *buf = NULL;
    size_t len = 0, cap = 0;

    if (f == NULL) {
        fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
        return -1;
    }
    for (;;) {
        size_t got;
        if (cap - len < 65536) {
            uint8_t *p = realloc(buf, cap = cap * 2 + 65536);
            if (p == NULL) {
                fclose(f);
                free(buf);
                return -1;
            }
            buf = p;
        }
        got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0)
            break;
    }
    fclose(f);
    if (verbose)
        printf("# %s (%zu bytes)\n", path, len);
    /* a copy of exactly len bytes, so ASan sees reads past the end */
    {
        uint8_t *exact = malloc(len ? len : 1);
        if (exact == NULL) {
            free(buf);
            return -1;
        }
        memcpy(exact, buf, len);
        free(buf);
        fflush(stdout);
        fn(exact, len);
        free(exact);
    }
    return 0;
}

static int
cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Runs every file of dir in name order; the count, or -1. */
static int
run_dir(target_fn fn, const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    char **names = NULL;
    int n = 0, cap = 0, rc = 0;

    if (d == NULL) {
        printf("# %s: %s\n", dir, strerror(errno));
        return -1;
    }
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.')
            continue;
        if (n == cap) {
            char **p =
                realloc(names, (size_t)(cap = cap * 2 + 64) * sizeof(*names));
            if (p == NULL)
                break;
            names = p;
        }
        names[n++] = strdup(de->d_name);
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof(*names), cmp_str);
    for (int i = 0; i < n; i++) {
        char path[8400];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        if (!verbose) {
            /* name the file only in the log, not on the terminal */
            fprintf(stderr, "# %s\n", path);
        }
        if (run_file(fn, path) != 0)
            rc = -1;
        free(names[i]);
    }
    free(names);
    return rc < 0 ? -1 : n;
}

/* Runs the files matching top/pattern; the count. */
static int
run_glob(target_fn fn, const char *top, const char *pattern)
{
    char pat[4096];
    glob_t g;
    int n = 0;
    snprintf(pat, sizeof pat, "%s/%s", top, pattern);
    if (glob(pat, 0, NULL, &g) != 0)
        return 0;
    for (size_t i = 0; i < g.gl_pathc; i++) {
        if (!verbose)
            fprintf(stderr, "# %s\n", g.gl_pathv[i]);
        if (run_file(fn, g.gl_pathv[i]) == 0)
            n++;
    }
    globfree(&g);
    return n;
}

int
main(int argc, char **argv)
{
    const char *top = getenv("top_srcdir");
    char corpus[4096];

    if (top == NULL)
        top = GR_FUZZ_SRCDIR;
    int failed = 0;

    verbose = getenv("GR_FUZZ_VERBOSE") != NULL;
    gr_fuzz_init();
    if (argc >= 3 && strcmp(argv[1], "-d") != 0) {
        for (int t = 0; t < NTARGETS; t++) {
            if (strcmp(targets[t].name, argv[1]) != 0)
                continue;
            for (int i = 2; i < argc; i++) {
                printf("# %s %s\n", argv[1], argv[i]);
                fflush(stdout);
                if (run_file(targets[t].fn, argv[i]) != 0)
                    return 1;
            }
            printf("replay: %d inputs ran\n", argc - 2);
            return 0;
        }
        fprintf(stderr, "replay: unknown target %s\n", argv[1]);
        return 2;
    }
    if (argc == 3)
        snprintf(corpus, sizeof corpus, "%s", argv[2]);
    else
        snprintf(corpus, sizeof corpus, "%s/tests/fuzz/corpus", top);

    printf("1..%d\n", NTARGETS);
    for (int t = 0; t < NTARGETS; t++) {
        char dir[4200];
        int n;
        snprintf(dir, sizeof dir, "%s/%s", corpus, targets[t].name);
        n = run_dir(targets[t].fn, dir);
        if (n > 0 && targets[t].extra)
            n += run_glob(targets[t].fn, top, targets[t].extra);
        if (n <= 0) {
            printf("not ok %d - %s: no corpus in %s\n", t + 1, targets[t].name,
                   dir);
            failed++;
        } else {
            printf("ok %d - %s: %d inputs\n", t + 1, targets[t].name, n);
        }
        fflush(stdout);
    }
    return failed ? 1 : 0;
}
