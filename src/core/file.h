/*
 * gr_file_t: a reference-counted open file descriptor, so a response that
 * will sendfile() from a segment keeps it open even if the segment is deleted
 * or closed meanwhile. Loop thread only.
 */
#ifndef GR_CORE_FILE_H
#define GR_CORE_FILE_H

typedef struct gr_file {
    int fd;
    int refs;
} gr_file_t;

/* Takes ownership of fd; refs = 1. NULL on ENOMEM (fd is then closed). */
gr_file_t *gr_file_new(int fd);
gr_file_t *gr_file_ref(gr_file_t *f);
/* Drops a reference; the last one closes the fd. NULL does nothing. */
void gr_file_unref(gr_file_t *f);

#endif
