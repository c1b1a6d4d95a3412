/* Reference-counted file descriptors: see file.h. */
#include "core/file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
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

int
gr_write_full(int fd, const void *p, size_t n)
{
    const char *c = p;
    while (n > 0) {
        ssize_t w = write(fd, c, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            if (w == 0)
                errno = EIO;
            return errno;
        }
        c += w;
        n -= (size_t)w;
    }
    return 0;
}

int
gr_fsync_dir(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), e = 0;
    if (fd < 0)
        return errno;
    if (fsync(fd) != 0)
        e = errno;
    close(fd);
    errno = e;
    return e;
}

int
gr_file_replace(const char *path, const char *tmp, const void *data,
                size_t n, int mode, bool durable)
{
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode), e;
    if (fd < 0)
        return errno;
    e = gr_write_full(fd, data, n);
    if (e == 0 && durable && fsync(fd) != 0)
        e = errno;
    if (close(fd) != 0 && e == 0)
        e = errno;
    if (e == 0 && rename(tmp, path) != 0)
        e = errno;
    if (e != 0)
        unlink(tmp);
    errno = e;
    return e;
}
