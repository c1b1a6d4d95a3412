/*
 * gr_file_t: a reference-counted open file descriptor, so a response that
 * will sendfile() from a segment keeps it open even if the segment is deleted
 * or closed meanwhile. Loop thread only.
 *
 * And the few whole-file steps every store repeats (the checkpoints, topic
 * records, the metadata journal, SCRAM credentials, producer id blocks): any
 * thread, logging nothing, so workers call them; each returns 0 or the errno
 * of the step that failed, and leaves errno set to it.
 */
#ifndef GR_CORE_FILE_H
#define GR_CORE_FILE_H

#include <stdbool.h>
#include <stddef.h>

typedef struct gr_file {
    int fd;
    int refs;
} gr_file_t;

/* Takes ownership of fd; refs = 1. NULL on ENOMEM (fd is then closed). */
gr_file_t *gr_file_new(int fd);
gr_file_t *gr_file_ref(gr_file_t *f);
/* Drops a reference; the last one closes the fd. NULL does nothing. */
void gr_file_unref(gr_file_t *f);

/* All n bytes written, through short writes and EINTR (EIO for a write
 * that writes nothing). */
int gr_write_full(int fd, const void *p, size_t n);
/* An fsync of a directory: the names created, renamed or removed in it are
 * durable once it returns 0. */
int gr_fsync_dir(const char *dir);
/* path replaced whole or not at all: data written to tmp (created with
 * mode, truncated if it exists), fsynced if durable, renamed over path;
 * tmp is removed when a step fails. The directory is not fsynced: callers
 * batch that with gr_fsync_dir. */
int gr_file_replace(const char *path, const char *tmp, const void *data,
                    size_t n, int mode, bool durable);

#endif
