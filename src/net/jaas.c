/* JAAS configuration text: see jaas.h. The tokenizer follows
 * java.io.StreamTokenizer with the settings of Kafka's JaasConfig. */
#include "net/jaas.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum { TT_EOF = -1, TT_WORD = -3, TT_NUMBER = -2 };

typedef struct tok {
    const char *p;
    int ttype;
    char *sval; /* TT_WORD or a quoted string; malloc'd */
    bool oom;
} tok_t;

static bool
is_white(int c)
{
    return c >= 0 && c <= ' ';
}

static bool
is_digit(int c)
{
    return (c >= '0' && c <= '9') || c == '.' || c == '-';
}

static bool
is_alpha(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 128 ||
           c == '-' || c == '_' || c == '$';
}

static char *
sdup(const char *s, size_t n, tok_t *t)
{
    char *r = malloc(n + 1);
    if (r == NULL) {
        t->oom = true;
        return NULL;
    }
    memcpy(r, s, n);
    r[n] = '\0';
    return r;
}

/* The next token, as StreamTokenizer.nextToken(). */
static int
next(tok_t *t)
{
    const unsigned char *p;
    free(t->sval);
    t->sval = NULL;
again:
    p = (const unsigned char *)t->p;
    while (*p && is_white(*p))
        p++;
    t->p = (const char *)p;
    if (*p == '\0')
        return t->ttype = TT_EOF;
    if (is_digit(*p)) {
        if (*p == '-' && !(p[1] == '.' || (p[1] >= '0' && p[1] <= '9'))) {
            t->p++;
            return t->ttype = '-';
        }
        if (*p == '-')
            p++;
        while ((*p >= '0' && *p <= '9') || *p == '.')
            p++;
        t->p = (const char *)p;
        return t->ttype = TT_NUMBER;
    }
    if (is_alpha(*p)) {
        const unsigned char *s = p;
        while (*p && (is_alpha(*p) || is_digit(*p)))
            p++;
        t->p = (const char *)p;
        t->sval = sdup((const char *)s, (size_t)(p - s), t);
        return t->ttype = TT_WORD;
    }
    if (*p == '"' || *p == '\'') {
        int q = *p++;
        size_t cap = strlen((const char *)p) + 1, k = 0;
        char *out = malloc(cap);
        if (out == NULL) {
            t->oom = true;
            return t->ttype = TT_EOF;
        }
        while (*p && *p != q && *p != '\n' && *p != '\r') {
            int c = *p++;
            if (c == '\\' && *p) {
                c = *p++;
                switch (c) {
                case 'a':
                    c = 7;
                    break;
                case 'b':
                    c = '\b';
                    break;
                case 'f':
                    c = '\f';
                    break;
                case 'n':
                    c = '\n';
                    break;
                case 'r':
                    c = '\r';
                    break;
                case 't':
                    c = '\t';
                    break;
                case 'v':
                    c = '\v';
                    break;
                default:
                    if (c >= '0' && c <= '7') {
                        int v = c - '0', max = c <= '3' ? 3 : 2;
                        for (int i = 1; i < max && *p >= '0' && *p <= '7'; i++)
                            v = v * 8 + (*p++ - '0');
                        c = v;
                    }
                }
            }
            out[k++] = (char)c;
        }
        out[k] = '\0';
        if (*p == q)
            p++;
        t->p = (const char *)p;
        t->sval = out;
        return t->ttype = q;
    }
    if (*p == '/' && p[1] == '*') {
        const char *e = strstr((const char *)p + 2, "*/");
        t->p = e ? e + 2 : (const char *)p + strlen((const char *)p);
        goto again;
    }
    if (*p == '/') {
        /* "//" and a lone '/' (StreamTokenizer's comment char) */
        while (*p && *p != '\n' && *p != '\r')
            p++;
        t->p = (const char *)p;
        goto again;
    }
    t->p++;
    return t->ttype = *p;
}

void
gr_jaas_free(gr_jaas_t *j)
{
    if (j == NULL)
        return;
    free(j->module);
    free(j->flag);
    for (int i = 0; i < j->nopts; i++) {
        free(j->opts[i].key);
        free(j->opts[i].value);
    }
    free(j->opts);
    free(j);
}

static int
set_option(gr_jaas_t *j, char *key, char *value)
{
    gr_jaas_option_t *o;
    for (int i = 0; i < j->nopts; i++) {
        if (strcmp(j->opts[i].key, key) == 0) {
            free(key);
            free(j->opts[i].value);
            j->opts[i].value = value;
            return 0;
        }
    }
    o = realloc(j->opts, sizeof(*o) * (size_t)(j->nopts + 1));
    if (o == NULL) {
        free(key);
        free(value);
        return -1;
    }
    j->opts = o;
    j->opts[j->nopts].key = key;
    j->opts[j->nopts].value = value;
    j->nopts++;
    return 0;
}

static bool
flag_valid(const char *f)
{
    return !strcasecmp(f, "required") || !strcasecmp(f, "requisite") ||
           !strcasecmp(f, "sufficient") || !strcasecmp(f, "optional");
}

/* One entry from the current token (its login module); NULL with err. */
static gr_jaas_t *
parse_entry(tok_t *t, char *err, size_t n)
{
    gr_jaas_t *j = calloc(1, sizeof(*j));
    if (j == NULL)
        goto oom;
    if (t->sval == NULL) {
        snprintf(err, n, "Login module not specified in JAAS config");
        goto fail;
    }
    j->module = t->sval;
    t->sval = NULL;
    if (next(t) == TT_EOF) {
        snprintf(err, n,
                 "Login module control flag not specified in JAAS config");
        goto fail;
    }
    if (t->sval == NULL) {
        snprintf(err, n,
                 "Login module control flag is not available in "
                 "the JAAS config");
        goto fail;
    }
    if (!flag_valid(t->sval)) {
        snprintf(err, n,
                 "Invalid login module control flag '%s' in JAAS "
                 "config",
                 t->sval);
        goto fail;
    }
    j->flag = t->sval;
    t->sval = NULL;
    while (next(t) != TT_EOF && t->ttype != ';') {
        char *key = t->sval, *value;
        t->sval = NULL;
        if (key == NULL) {
            snprintf(err, n,
                     "Value not specified for key 'null' in JAAS "
                     "config");
            goto fail;
        }
        if (next(t) != '=' || next(t) == TT_EOF || t->sval == NULL) {
            snprintf(err, n, "Value not specified for key '%s' in JAAS config",
                     key);
            free(key);
            goto fail;
        }
        value = t->sval;
        t->sval = NULL;
        if (set_option(j, key, value) != 0)
            goto oom;
    }
    if (t->oom)
        goto oom;
    if (t->ttype != ';') {
        snprintf(err, n, "JAAS config entry not terminated by semi-colon");
        goto fail;
    }
    return j;
oom:
    snprintf(err, n, "out of memory");
fail:
    gr_jaas_free(j);
    return NULL;
}

gr_jaas_t *
gr_jaas_parse(const char *text, char *err, size_t n)
{
    tok_t t = { .p = text };
    gr_jaas_t *first = NULL;
    int count = 0;

    while (next(&t) != TT_EOF) {
        gr_jaas_t *j = parse_entry(&t, err, n);
        if (j == NULL) {
            free(t.sval);
            gr_jaas_free(first);
            return NULL;
        }
        if (first == NULL)
            first = j;
        else
            gr_jaas_free(j);
        count++;
    }
    free(t.sval);
    if (t.oom) {
        snprintf(err, n, "out of memory");
        gr_jaas_free(first);
        return NULL;
    }
    if (count == 0) {
        snprintf(err, n, "Login module not specified in JAAS config");
        return NULL;
    }
    if (count != 1) {
        snprintf(err, n,
                 "JAAS config property contains %d login modules, should be "
                 "1 module",
                 count);
        gr_jaas_free(first);
        return NULL;
    }
    return first;
}

const char *
gr_jaas_option(const gr_jaas_t *j, const char *key)
{
    if (j == NULL)
        return NULL;
    for (int i = 0; i < j->nopts; i++)
        if (strcmp(j->opts[i].key, key) == 0)
            return j->opts[i].value;
    return NULL;
}
