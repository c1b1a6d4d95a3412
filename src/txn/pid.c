/* Producer id blocks: see pid.h. */
#include "txn/pid.h"
#include "core/log.h"
#include "core/file.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdbool.h>
#include <unistd.h>

#define PID_FILE "gregor-producer-ids"

struct gr_pids {
    char *dir;
    int64_t next;      /* next id to give */
    int64_t block_end; /* first id not covered by the recorded block */
};

static int
record(gr_pids_t *p, int64_t block_end)
{
    char path[PATH_MAX], tmp[PATH_MAX + 8], data[128];
    int n, e;
    snprintf(path, sizeof path, "%s/%s", p->dir, PID_FILE);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    n = snprintf(data, sizeof data,
                 "# Gregor: producer ids below this are taken.\n"
                 "block.end=%" PRId64 "\n",
                 block_end);
    /* the block counts once its name is durable too: a crash that lost
     * the rename would hand out its ids a second time */
    e = gr_file_replace(path, tmp, data, (size_t)n, 0644, true);
    if (e == 0)
        e = gr_fsync_dir(p->dir);
    if (e == 0)
        return 0;
    GR_LOG_ERROR("cannot record producer id block in %s: %s", path,
                 strerror(e));
    return -1;
}

gr_pids_t *
gr_pids_open(const char *dir)
{
    gr_pids_t *p = calloc(1, sizeof(*p));
    char path[PATH_MAX], line[256];
    FILE *f;
    if (p == NULL || (p->dir = strdup(dir)) == NULL) {
        free(p);
        return NULL;
    }
    snprintf(path, sizeof path, "%s/%s", dir, PID_FILE);
    f = fopen(path, "r");
    if (f != NULL) {
        bool found = false;
        while (fgets(line, sizeof line, f)) {
            char *end;
            if (strncmp(line, "block.end=", 10) != 0)
                continue;
            errno = 0;
            p->block_end = strtoll(line + 10, &end, 10);
            if (errno || end == line + 10 || p->block_end < 0) {
                fclose(f);
                GR_LOG_ERROR("%s is damaged", path);
                gr_pids_close(p);
                return NULL;
            }
            found = true;
        }
        fclose(f);
        if (!found) {
            GR_LOG_ERROR("%s is damaged (no block.end)", path);
            gr_pids_close(p);
            return NULL;
        }
    }
    /* the rest of the last recorded block may have been handed out */
    p->next = p->block_end;
    return p;
}

void
gr_pids_close(gr_pids_t *p)
{
    if (p == NULL)
        return;
    free(p->dir);
    free(p);
}

int64_t
gr_pids_next(gr_pids_t *p)
{
    if (p->next >= p->block_end) {
        if (record(p, p->block_end + GR_PID_BLOCK) != 0)
            return -1;
        p->block_end += GR_PID_BLOCK;
    }
    return p->next++;
}
