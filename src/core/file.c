/* Reference-counted file descriptors: see file.h. */
#include "core/file.h"

#include <stdlib.h>
#include <unistd.h>

gr_file_t *
gr_file_new(int fd)
{
    gr_file_t *f = malloc(sizeof(*f));
    if (f == NULL) {
        close(fd);
        return NULL;
    }
    f->fd = fd;
    f->refs = 1;
    return f;
}

gr_file_t *
gr_file_ref(gr_file_t *f)
{
    f->refs++;
    return f;
}

void
gr_file_unref(gr_file_t *f)
{
    if (f == NULL || --f->refs > 0)
        return;
    if (f->fd >= 0)
        close(f->fd);
    free(f);
}
