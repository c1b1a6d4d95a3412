/*
 * `gregor ctl URL OP [ARGS]`: the control operations from a shell. Each
 * OP is one HTTP request to the control listener at URL (the one the
 * broker prints: "gregor: control on http://127.0.0.1:PORT"); its JSON
 * answer goes to stdout. ARGS are key=value pairs that become the JSON
 * body's members (integers and true/false as such, anything else a
 * string). Exit 0 on a 2xx answer, 1 on another answer, 2 on a usage or
 * connection error.
 */
#include "control/control.h"
#include "core/buf.h"
#include "core/json.h"

#include <errno.h>
#include <netdb.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

static void
usage(FILE *f)
{
    fprintf(f,
            "Usage: gregor ctl URL OP [key=value...]\n"
            "\n"
            "URL is the control listener (\"gregor: control on URL\"). OPs:\n"
            "  info                      the broker, its listeners, counters\n"
            "  fault key=value...        add a fault: api= error= count= "
            "(-1: until\n"
            "                            cleared) throttle_ms= delay_ms= "
            "top=true\n"
            "                            topic= partition= group= "
            "client_id=\n"
            "  push API ERR[:k=v...]...  a stack of errors for API, one "
            "request each\n"
            "                            (NONE lets one through), e.g.\n"
            "                            push Produce NOT_LEADER_OR_FOLLOWER\n"
            "                            THROTTLING_QUOTA_EXCEEDED:"
            "throttle_ms=500\n"
            "  drop key=value...         close the connection of the next "
            "matching\n"
            "                            request (count= api= ...)\n"
            "  blackhole key=value...    never answer matching requests "
            "(client_id=\n"
            "                            api=); until cleared\n"
            "  delay ms=N key=value...   responses leave N ms after their "
            "request\n"
            "  cap api=A max=N [min=N]   serve only versions min..max of A "
            "(max=-1:\n"
            "                            not at all)\n"
            "  emulate [VERSION|none]    look like Apache Kafka VERSION (2.8 "
            "... 4.3):\n"
            "                            its API versions only; none: "
            "Gregor's own\n"
            "  close                     close every client connection\n"
            "  clock                     the broker's clock (virtual or "
            "real)\n"
            "  advance DURATION          move the virtual clock (--virtual-"
            "clock) ahead:\n"
            "                            250 (ms), 500ms, 30s, 5m, 2h, 1d, "
            "1m30s\n"
            "  faults | delays | caps    list them\n"
            "  requests [since=S limit=N api=A client_id=C]  the request "
            "log\n"
            "  clear [faults|delays|caps|emulate|requests] [ID]  clear one "
            "kind\n"
            "                            (emulate: back to gregor.emulate."
            "version), "
            "or all\n"
            "  get PATH | delete PATH | post PATH JSON   any route\n");
}

int
gr_ctl_duration_ms(const char *s, int64_t *ms)
{
    static const struct {
        const char *unit;
        int64_t ms;
    } units[] = { { "ms", 1 },      { "s", 1000 },     { "m", 60000 },
                  { "h", 3600000 }, { "d", 86400000 }, { "", 1 } };
    const char *start = s;
    int64_t total = 0;
    if (s == NULL || *s == '\0')
        return -1;
    while (*s) {
        int64_t n = 0;
        size_t k, nd = 0;
        if (*s < '0' || *s > '9')
            return -1;
        for (; *s >= '0' && *s <= '9'; s++, nd++) {
            if (n > (INT64_MAX - 9) / 10)
                return -1;
            n = n * 10 + (*s - '0');
        }
        for (k = 0; k < sizeof units / sizeof units[0]; k++) {
            size_t ul = strlen(units[k].unit);
            /* "ms" is tried before "m"; no unit: digits alone */
            if (strncmp(s, units[k].unit, ul) == 0 &&
                (ul > 0 || (*s == '\0' && total == 0 && s == start + nd)))
                break;
        }
        if (k == sizeof units / sizeof units[0] ||
            n > (INT64_MAX / 2) / units[k].ms)
            return -1;
        total += n * units[k].ms;
        if (total > INT64_MAX / 2)
            return -1;
        s += strlen(units[k].unit);
    }
    *ms = total;
    return 0;
}

/* "http://host:port" into host and port */
static int
split_url(const char *url, char *host, size_t hsz, char *port, size_t psz)
{
    const char *h, *c;
    size_t n;
    if (strncmp(url, "http://", 7) != 0)
        return -1;
    h = url + 7;
    n = strcspn(h, "/");
    if (*h == '[') {
        const char *rb = memchr(h, ']', n);
        if (rb == NULL || rb[1] != ':')
            return -1;
        c = rb + 1;
        if ((size_t)(rb - h - 1) >= hsz)
            return -1;
        memcpy(host, h + 1, (size_t)(rb - h - 1));
        host[rb - h - 1] = '\0';
    } else {
        c = memchr(h, ':', n);
        if (c == NULL || (size_t)(c - h) >= hsz)
            return -1;
        memcpy(host, h, (size_t)(c - h));
        host[c - h] = '\0';
    }
    if ((size_t)(h + n - c - 1) >= psz || h + n - c - 1 <= 0)
        return -1;
    memcpy(port, c + 1, (size_t)(h + n - c - 1));
    port[h + n - c - 1] = '\0';
    return 0;
}

int
gr_ctl_http(const char *url, const char *method, const char *path,
            const char *body, gr_buf_t *out, char *err, size_t errsz)
{
    char host[256], port[16];
    struct addrinfo hints, *res = NULL;
    struct timeval tv = { 30, 0 };
    gr_buf_t req = GR_BUF_INIT, resp = GR_BUF_INIT;
    const char *sep, *b;
    int fd, status = 0, rc;
    size_t off = 0;

    if (split_url(url, host, sizeof host, port, sizeof port) != 0) {
        snprintf(err, errsz, "%s is not http://host:port", url);
        return -1;
    }
    memset(&hints, 0, sizeof hints);
    hints.ai_socktype = SOCK_STREAM;
    if ((rc = getaddrinfo(host, port, &hints, &res)) != 0) {
        snprintf(err, errsz, "%s: %s", host, gai_strerror(rc));
        return -1;
    }
    fd = socket(res->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || connect(fd, res->ai_addr, res->ai_addrlen) != 0) {
        snprintf(err, errsz, "cannot connect to %s: %s", url, strerror(errno));
        if (fd >= 0)
            close(fd);
        freeaddrinfo(res);
        return -1;
    }
    freeaddrinfo(res);
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    gr_buf_printf(&req,
                  "%s %s HTTP/1.1\r\nHost: %s:%s\r\nConnection: close\r\n"
                  "Content-Type: application/json\r\nContent-Length: %zu\r\n"
                  "\r\n%s",
                  method, path, host, port, body ? strlen(body) : 0,
                  body ? body : "");
    while (off < req.len) {
        ssize_t n = send(fd, req.ptr + off, req.len - off, MSG_NOSIGNAL);
        if (n <= 0) {
            snprintf(err, errsz, "sending: %s", strerror(errno));
            close(fd);
            gr_buf_fini(&req);
            return -1;
        }
        off += (size_t)n;
    }
    gr_buf_fini(&req);
    for (;;) {
        char chunk[8192];
        ssize_t n = read(fd, chunk, sizeof chunk);
        if (n == 0)
            break;
        if (n < 0) {
            if (errno == EINTR)
                continue;
            snprintf(err, errsz, "reading: %s", strerror(errno));
            close(fd);
            gr_buf_fini(&resp);
            return -1;
        }
        gr_buf_append(&resp, chunk, (size_t)n);
    }
    close(fd);
    b = gr_buf_cstr(&resp);
    if (resp.oom || sscanf(b, "HTTP/1.%*d %d", &status) != 1 ||
        (sep = strstr(b, "\r\n\r\n")) == NULL) {
        snprintf(err, errsz, "not an HTTP answer from %s", url);
        gr_buf_fini(&resp);
        return -1;
    }
    gr_buf_puts(out, sep + 4);
    gr_buf_fini(&resp);
    return status;
}

/* One request; prints the body. Returns the exit code. */
static int
call(const char *url, const char *method, const char *path, const char *body)
{
    gr_buf_t out = GR_BUF_INIT;
    char err[512];
    int status = gr_ctl_http(url, method, path, body, &out, err, sizeof err);
    if (status < 0) {
        fprintf(stderr, "gregor ctl: %s\n", err);
        return 2;
    }
    fwrite(out.ptr, 1, out.len, stdout);
    fflush(stdout);
    gr_buf_fini(&out);
    if (status < 200 || status > 299) {
        fprintf(stderr, "gregor ctl: %s %s: HTTP %d\n", method, path, status);
        return 1;
    }
    return 0;
}

static bool
is_int(const char *s)
{
    if (*s == '-')
        s++;
    if (*s == '\0')
        return false;
    for (; *s; s++)
        if (*s < '0' || *s > '9')
            return false;
    return true;
}

int
gr_ctl_kv_json(gr_buf_t *o, const char *kv, size_t len, bool first)
{
    const char *eq = memchr(kv, '=', len);
    char v[1024];
    size_t vn;
    if (eq == NULL || eq == kv)
        return -1;
    vn = len - (size_t)(eq + 1 - kv);
    if (vn >= sizeof v)
        return -1;
    memcpy(v, eq + 1, vn);
    v[vn] = '\0';
    if (!first)
        gr_buf_putc(o, ',');
    gr_json_put_str(o, kv, (size_t)(eq - kv));
    gr_buf_putc(o, ':');
    if (is_int(v) || strcmp(v, "true") == 0 || strcmp(v, "false") == 0 ||
        strcmp(v, "null") == 0)
        gr_buf_puts(o, v);
    else
        gr_json_put_str(o, v, vn);
    return 0;
}

static int
put_kv(gr_buf_t *o, const char *kv, bool first)
{
    return gr_ctl_kv_json(o, kv, strlen(kv), first);
}

/* {extra..., k=v...} from args; NULL on a malformed pair. */
static char *
object(gr_buf_t *o, const char *extra, int argc, char **argv)
{
    bool first = true;
    gr_buf_putc(o, '{');
    if (extra != NULL) {
        gr_buf_puts(o, extra);
        first = false;
    }
    for (int i = 0; i < argc; i++) {
        if (put_kv(o, argv[i], first) != 0) {
            fprintf(stderr, "gregor ctl: expected key=value, got '%s'\n",
                    argv[i]);
            return NULL;
        }
        first = false;
    }
    gr_buf_putc(o, '}');
    return (char *)gr_buf_cstr(o);
}

/* The stack of errors of "push API ERR[:k=v...]... [k=v...]". */
static char *
push_body(gr_buf_t *o, int argc, char **argv)
{
    bool first_err = true, first_kv = true;
    gr_buf_t kvs = GR_BUF_INIT;
    gr_buf_puts(o, "{\"api\":");
    gr_json_put_str(o, argv[0], strlen(argv[0]));
    gr_buf_puts(o, ",\"errors\":[");
    for (int i = 1; i < argc; i++) {
        char *a = argv[i], *colon;
        if (strchr(a, '=') != NULL && strchr(a, ':') == NULL) {
            if (put_kv(&kvs, a, first_kv) != 0)
                goto bad;
            first_kv = false;
            continue;
        }
        if (!first_err)
            gr_buf_putc(o, ',');
        first_err = false;
        colon = strchr(a, ':');
        gr_buf_puts(o, "{\"error\":");
        gr_json_put_str(o, a, colon ? (size_t)(colon - a) : strlen(a));
        while (colon != NULL) {
            char *next = strchr(colon + 1, ':');
            char kv[256];
            size_t n = next ? (size_t)(next - colon - 1) : strlen(colon + 1);
            if (n >= sizeof kv)
                goto bad;
            memcpy(kv, colon + 1, n);
            kv[n] = '\0';
            if (put_kv(o, kv, false) != 0)
                goto bad;
            colon = next;
        }
        gr_buf_putc(o, '}');
    }
    gr_buf_putc(o, ']');
    if (kvs.len > 0) {
        gr_buf_putc(o, ',');
        gr_buf_append(o, kvs.ptr, kvs.len);
    }
    gr_buf_putc(o, '}');
    gr_buf_fini(&kvs);
    if (first_err) {
        fprintf(stderr, "gregor ctl: push needs at least one error\n");
        return NULL;
    }
    return (char *)gr_buf_cstr(o);
bad:
    fprintf(stderr, "gregor ctl: malformed argument '%s'\n", argv[0]);
    gr_buf_fini(&kvs);
    return NULL;
}

int
gr_ctl_main(int argc, char **argv)
{
    const char *url, *op;
    gr_buf_t b = GR_BUF_INIT, path = GR_BUF_INIT;
    char *body = NULL;
    int rc = 2;

    if (argc >= 2 &&
        (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        usage(stdout);
        return 0;
    }
    if (argc < 3) {
        usage(stderr);
        return 2;
    }
    url = argv[1];
    op = argv[2];
    argc -= 3;
    argv += 3;
    if (strcmp(op, "info") == 0 && argc == 0) {
        rc = call(url, "GET", "/v1", NULL);
    } else if (strcmp(op, "fault") == 0 || strcmp(op, "drop") == 0 ||
               strcmp(op, "blackhole") == 0) {
        const char *extra = strcmp(op, "drop") == 0 ? "\"action\":\"drop\""
                            : strcmp(op, "blackhole") == 0
                                ? "\"action\":\"blackhole\""
                                : NULL;
        if ((body = object(&b, extra, argc, argv)) != NULL)
            rc = call(url, "POST", "/v1/faults", body);
    } else if (strcmp(op, "push") == 0 && argc >= 2) {
        if ((body = push_body(&b, argc, argv)) != NULL)
            rc = call(url, "POST", "/v1/faults", body);
    } else if (strcmp(op, "delay") == 0) {
        if ((body = object(&b, NULL, argc, argv)) != NULL)
            rc = call(url, "POST", "/v1/delays", body);
    } else if (strcmp(op, "cap") == 0) {
        if ((body = object(&b, NULL, argc, argv)) != NULL)
            rc = call(url, "POST", "/v1/caps", body);
    } else if (strcmp(op, "emulate") == 0 && argc <= 1) {
        if (argc == 0) {
            rc = call(url, "GET", "/v1/emulate", NULL);
        } else {
            gr_buf_puts(&b, "{\"version\":");
            if (strcmp(argv[0], "none") == 0)
                gr_buf_puts(&b, "null");
            else
                gr_json_put_str(&b, argv[0], strlen(argv[0]));
            gr_buf_puts(&b, "}");
            rc = call(url, "POST", "/v1/emulate", gr_buf_cstr(&b));
        }
    } else if (strcmp(op, "clock") == 0 && argc == 0) {
        rc = call(url, "GET", "/v1/clock", NULL);
    } else if (strcmp(op, "advance") == 0 && argc == 1) {
        int64_t ms;
        if (gr_ctl_duration_ms(argv[0], &ms) != 0) {
            fprintf(stderr,
                    "gregor ctl: advance: '%s' is not a duration (250, "
                    "500ms, 30s, 5m, 2h, 1d, 1m30s)\n",
                    argv[0]);
            rc = 2;
        } else {
            gr_buf_printf(&b, "{\"ms\":%lld}", (long long)ms);
            rc = call(url, "POST", "/v1/clock/advance", gr_buf_cstr(&b));
        }
    } else if (strcmp(op, "close") == 0 && argc == 0) {
        rc = call(url, "POST", "/v1/connections/close", "{}");
    } else if ((strcmp(op, "faults") == 0 || strcmp(op, "delays") == 0 ||
                strcmp(op, "caps") == 0) &&
               argc == 0) {
        gr_buf_printf(&path, "/v1/%s", op);
        rc = call(url, "GET", gr_buf_cstr(&path), NULL);
    } else if (strcmp(op, "requests") == 0) {
        gr_buf_puts(&path, "/v1/requests");
        for (int i = 0; i < argc; i++)
            gr_buf_printf(&path, "%c%s", i ? '&' : '?', argv[i]);
        rc = call(url, "GET", gr_buf_cstr(&path), NULL);
    } else if (strcmp(op, "clear") == 0 && argc <= 2) {
        if (argc == 0) {
            rc = call(url, "POST", "/v1/reset", "{}");
        } else {
            gr_buf_printf(&path, "/v1/%s", argv[0]);
            if (argc == 2)
                gr_buf_printf(&path, "/%s", argv[1]);
            rc = call(url, "DELETE", gr_buf_cstr(&path), NULL);
        }
    } else if ((strcmp(op, "get") == 0 || strcmp(op, "delete") == 0) &&
               argc == 1) {
        rc =
            call(url, strcmp(op, "get") == 0 ? "GET" : "DELETE", argv[0], NULL);
    } else if (strcmp(op, "post") == 0 && argc == 2) {
        rc = call(url, "POST", argv[0], argv[1]);
    } else {
        usage(stderr);
    }
    gr_buf_fini(&b);
    gr_buf_fini(&path);
    return rc;
}
