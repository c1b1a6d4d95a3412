/*
 * SaslAuthenticate (api key 36): one step of the mechanism's exchange,
 * in net/sasl.c; v1+ answers carry the session lifetime (KIP-368). On a
 * listener without SASL, or once authenticated, the answer is
 * ILLEGAL_SASL_STATE with Kafka's message.
 */
#include "api/api_int.h"
#include "net/sasl.h"

int
gr_api_sasl_authenticate(gr_req_t *req)
{
    return gr_sasl_authenticate(req);
}
