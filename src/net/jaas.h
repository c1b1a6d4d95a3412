/*
 * JAAS configuration text as Kafka reads sasl.jaas.config (its JaasConfig,
 * a java.io.StreamTokenizer): entries "<LoginModule class> <flag>
 * key=value ... ;", flags required, requisite, sufficient or optional (any
 * case), values quoted ("..." or '...', with Java's escapes) or bare words
 * (letters, digits, '.', '-', '_', '$'; a bare value that starts with a
 * digit is a number to Java and refused, as Kafka refuses it), comments
 * "//" to the end of the line and C's. A broker's value holds exactly one
 * entry (Kafka's JaasContext.load).
 */
#ifndef GR_NET_JAAS_H
#define GR_NET_JAAS_H

#include <stddef.h>

typedef struct gr_jaas_option {
    char *key;
    char *value;
} gr_jaas_option_t;

typedef struct gr_jaas {
    char *module; /* org.apache.kafka.common.security.plain.PlainLoginModule */
    char *flag;   /* as written */
    gr_jaas_option_t *opts;
    int nopts;
} gr_jaas_t;

/* Parses text (one entry). A malloc'd gr_jaas_t, or NULL with Kafka's
 * reason in err (n bytes) ("Value not specified for key 'x' in JAAS
 * config", ...), or "out of memory". */
gr_jaas_t *gr_jaas_parse(const char *text, char *err, size_t n);
void gr_jaas_free(gr_jaas_t *j);
/* The value of key (the last one given, as Java's map keeps it), or
 * NULL. */
const char *gr_jaas_option(const gr_jaas_t *j, const char *key);

#endif
