/* Shared by the handler files (one per ApiKey). */
#ifndef GR_API_API_INT_H
#define GR_API_API_INT_H

#include "api/dispatch.h"
#include "broker.h"
#include "core/log.h"
#include "proto/gen/proto_table.h"
#include "proto/kerr.h"

int gr_api_api_versions(gr_req_t *req);
int gr_api_metadata(gr_req_t *req);

#endif
