/* Client addresses: see ipaddr.h. */
#include "core/ipaddr.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>

void
gr_ipaddr_from_sockaddr(gr_ipaddr_t *out, const struct sockaddr *sa)
{
    memset(out, 0, sizeof *out);
    if (sa->sa_family == AF_INET) {
        const struct sockaddr_in *in = (const struct sockaddr_in *)sa;
        out->a[10] = out->a[11] = 0xff;
        memcpy(out->a + 12, &in->sin_addr, 4);
    } else if (sa->sa_family == AF_INET6) {
        const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)sa;
        memcpy(out->a, &in6->sin6_addr, 16);
    }
}

int
gr_ipaddr_parse(gr_ipaddr_t *out, const char *text)
{
    struct in_addr a4;
    memset(out, 0, sizeof *out);
    if (inet_pton(AF_INET, text, &a4) == 1) {
        out->a[10] = out->a[11] = 0xff;
        memcpy(out->a + 12, &a4, 4);
        return 0;
    }
    return inet_pton(AF_INET6, text, out->a) == 1 ? 0 : -1;
}
