/*
 * SaslHandshake (api key 17): the mechanism a client picks. The exchange
 * and its states are net/sasl.c's (Kafka's SaslServerAuthenticator); on
 * a listener without SASL, or after authentication without a session
 * lifetime, the answer is ILLEGAL_SASL_STATE, as KafkaApis gives.
 */
#include "api/api_int.h"
#include "net/sasl.h"

int
gr_api_sasl_handshake(gr_req_t *req)
{
    return gr_sasl_handshake(req);
}
