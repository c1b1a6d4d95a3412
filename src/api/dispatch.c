/* Request dispatch: see dispatch.h. */
#include "api/api_int.h"
#include "api/emulate.h"
#include "core/time.h"
#include "net/sasl.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void
dump_frame(gr_req_t *req, const char *kind, const uint8_t *p, size_t len)
{
    char path[4096];
    int fd;
    const char *dir = req->broker->dump_frames_dir;
    if (dir == NULL || req->api == NULL)
        return;
    snprintf(path, sizeof path, "%s/%s", dir, req->api->name);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/%s/v%d.%s.bin", dir, req->api->name,
             req->version, kind);
    fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0)
        return; /* first frame per (api, version, kind) is kept */
    if (write(fd, p, len) != (ssize_t)len)
        GR_LOG_WARN("dump %s: %s", path, strerror(errno));
    close(fd);
}

/* ApiVersions above what we serve: a v0 body with UNSUPPORTED_VERSION and
 * the ApiVersions range, so the client can retry with a version we speak
 * (Kafka's ApiVersionsRequest.getErrorResponse). */
static void
reply_api_versions_unsupported(gr_req_t *req, int16_t min, int16_t max)
{
    gr_api_versions_response_t *rs;
    gr_api_versions_response_api_version_t *k;

    req->version = 0;
    rs = gr_arena_alloc(req->a, sizeof(*rs));
    k = gr_arena_alloc(req->a, sizeof(*k));
    if (rs == NULL || k == NULL) {
        gr_req_close(req, "out of memory");
        return;
    }
    gr_api_versions_response_init(rs);
    rs->error_code = GR_KERR_UNSUPPORTED_VERSION;
    k->api_key = GR_API_API_VERSIONS;
    k->min_version = min;
    k->max_version = max;
    rs->api_keys = k;
    rs->api_keys_cnt = 1;
    req->resp = rs;
    gr_req_reply(req);
}

void
gr_dispatch(gr_req_t *req, const uint8_t *frame, size_t len)
{
    gr_reader_t r = gr_reader_init(frame, len);
    const gr_api_entry_t *e;
    const gr_proto_api_t *api;
    char why[256];
    int16_t min, max;

    if (gr_req_header_decode(&r, &req->hdr) != 0) {
        GR_LOG_WARN("closing connection %s: malformed request header (%zu "
                    "bytes)",
                    gr_req_peer(req), len);
        gr_req_close(req, "malformed request header");
        return;
    }
    req->version = req->hdr.api_version;
    /* SASL listeners: what is allowed before (and after) authentication */
    if (gr_req_sasl(req) != NULL && gr_sasl_gate(req) != 0)
        return;
    api = gr_proto_api(req->hdr.api_key);
    e = gr_api_find(req->hdr.api_key);
    if (api == NULL || e == NULL) {
        GR_LOG_WARN("closing connection %s (client %.*s): unknown or "
                    "unsupported api key %d (v%d)",
                    gr_req_peer(req),
                    req->hdr.client_id.len > 0 ? req->hdr.client_id.len : 0,
                    req->hdr.client_id.ptr ? req->hdr.client_id.ptr : "",
                    req->hdr.api_key, req->hdr.api_version);
        gr_req_close(req, "unknown api key");
        return;
    }
    req->api = api;
    gr_api_served(req->broker, e, &min, &max);
    if (max < min) {
        GR_LOG_WARN("closing connection %s (client %.*s): %s is not served "
                    "(%s%s)",
                    gr_req_peer(req),
                    req->hdr.client_id.len > 0 ? req->hdr.client_id.len : 0,
                    req->hdr.client_id.ptr ? req->hdr.client_id.ptr : "",
                    api->name,
                    req->broker->emulate != NULL
                        ? "not in the emulated Kafka "
                        : "turned off by the control interface",
                    req->broker->emulate != NULL
                        ? gr_api_release_name(req->broker->emulate)
                        : "");
        gr_req_close(req, "api turned off");
        return;
    }
    if (req->version < min || req->version > max) {
        if (req->hdr.api_key == GR_API_API_VERSIONS && req->version > max) {
            GR_LOG_INFO("ApiVersions v%d from %s is newer than v%d: "
                        "answering UNSUPPORTED_VERSION in v0 form",
                        req->version, gr_req_peer(req), max);
            reply_api_versions_unsupported(req, min, max);
            return;
        }
        GR_LOG_WARN("closing connection %s (client %.*s): %s v%d is not "
                    "supported (served v%d-v%d)",
                    gr_req_peer(req),
                    req->hdr.client_id.len > 0 ? req->hdr.client_id.len : 0,
                    req->hdr.client_id.ptr ? req->hdr.client_id.ptr : "",
                    api->name, req->version, min, max);
        gr_req_close(req, "unsupported version");
        return;
    }
    dump_frame(req, "req", frame, len);
    req->body = gr_arena_alloc(req->a, api->request.struct_size);
    req->resp = gr_arena_alloc(req->a, api->response.struct_size);
    if (req->body == NULL || req->resp == NULL) {
        gr_req_close(req, "out of memory");
        return;
    }
    /* the arrays a body decodes to take at most socket.request.max.bytes
     * (gr_rd_alloc): they can be 16 times the bytes they come from */
    r.mem_left = gr_api_answer_max(req);
    if (api->request.decode(&r, req->version, req->a, req->body) != 0) {
        snprintf(why, sizeof why, "%s", gr_err_str(r.err));
        GR_LOG_WARN("closing connection %s (client %.*s): cannot decode %s "
                    "v%d request: %s",
                    gr_req_peer(req),
                    req->hdr.client_id.len > 0 ? req->hdr.client_id.len : 0,
                    req->hdr.client_id.ptr ? req->hdr.client_id.ptr : "",
                    api->name, req->version, why);
        gr_req_close(req, "undecodable request");
        return;
    }
    /* Bytes after the body are ignored, as Kafka ignores them (its
     * generated readers never check for the end of the buffer): current
     * librdkafka sends some after Metadata v12, and librdkafka < 2.1 one
     * more empty tag section after ListGroups v3+. */
    if (gr_reader_remaining(&r) != 0)
        GR_LOG_DEBUG("%s (client %.*s): %zu bytes after the %s v%d request "
                     "body, ignored",
                     gr_req_peer(req),
                     req->hdr.client_id.len > 0 ? req->hdr.client_id.len : 0,
                     req->hdr.client_id.ptr ? req->hdr.client_id.ptr : "",
                     gr_reader_remaining(&r), api->name, req->version);
    if (gr_log_level >= GR_LOG_LEVEL_TRACE) {
        gr_buf_t b = GR_BUF_INIT;
        api->request.print(&b, req->body, req->version);
        GR_LOG_TRACE("%s %s v%d corr %d: %s", gr_req_peer(req), api->name,
                     req->version, req->hdr.correlation_id, gr_buf_cstr(&b));
        gr_buf_fini(&b);
    }
    api->response.init(req->resp);
    /* the control interface may answer it itself (src/control/) */
    if (req->broker->request_hook != NULL && req->broker->request_hook(req))
        return;
    e->handler(req);
}

void
gr_dispatch_trace_response(gr_req_t *req, const uint8_t *buf, size_t len,
                           const gr_writer_t *w)
{
    /* dumps hold the frame without its size, and only all-memory ones */
    if (req->broker->dump_frames_dir && w->splices_cnt == 0 && len >= 4)
        dump_frame(req, "resp", buf + 4, len - 4);
    if (gr_log_level >= GR_LOG_LEVEL_TRACE && req->api) {
        gr_buf_t b = GR_BUF_INIT;
        req->api->response.print(&b, req->resp, req->version);
        GR_LOG_TRACE("%s %s v%d corr %d -> %s", gr_req_peer(req),
                     req->api->name, req->version, req->hdr.correlation_id,
                     gr_buf_cstr(&b));
        gr_buf_fini(&b);
    }
}

const gr_conn_dispatch_t gr_api_dispatch = {
    .request = gr_dispatch,
    .response = gr_dispatch_trace_response,
};

uint64_t
gr_api_answer_max(const gr_req_t *req)
{
    int64_t max = req->broker->max_request_bytes;
    return max > 0 ? (uint64_t)max : 0;
}

int
gr_api_answer_refuse(gr_req_t *req, uint64_t bytes)
{
    GR_LOG_WARN("closing connection %s (client %.*s): the %s v%d answer "
                "would take more than %llu bytes (socket.request.max.bytes), "
                "%llu when refused",
                gr_req_peer(req),
                req->hdr.client_id.len > 0 ? req->hdr.client_id.len : 0,
                req->hdr.client_id.ptr ? req->hdr.client_id.ptr : "",
                req->api ? req->api->name : "?", req->version,
                (unsigned long long)gr_api_answer_max(req),
                (unsigned long long)bytes);
    return gr_req_close(req, "answer too large");
}
