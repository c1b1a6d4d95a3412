/* Shared by the fuzz targets: see fuzz.h. */
#include "fuzz.h"

#include "core/log.h"

#include <string.h>

void
gr_fuzz_init(void)
{
    static int done;
    if (done)
        return;
    done = 1;
    /* hostile input makes the broker log; GR_FUZZ_VERBOSE=1 shows it,
     * GR_FUZZ_VERBOSE=debug more */
    const char *v = getenv("GR_FUZZ_VERBOSE");
    if (v == NULL)
        gr_log_level = -1;
    else if (strcmp(v, "debug") == 0)
        gr_log_level = GR_LOG_LEVEL_DEBUG;
}
