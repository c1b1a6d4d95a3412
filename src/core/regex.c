/* Client regular expressions: see regex.h. */
#include "core/regex.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The longest translation of a pattern of len bytes: an escape of two
 * bytes becomes at most 12 ("\\S": "[^[:space:]]"), and "^(", ")$" and the
 * NUL add 5. */
#define OUT_MAX(len) (6 * (size_t)(len) + 8)

/* What Java's class escapes mean, outside and inside a bracket. */
static const char *
class_escape(char c, bool in_bracket)
{
    switch (c) {
    case 'd': return in_bracket ? "0-9" : "[0-9]";
    case 'D': return in_bracket ? NULL : "[^0-9]";
    case 'w': return in_bracket ? "A-Za-z0-9_" : "[A-Za-z0-9_]";
    case 'W': return in_bracket ? NULL : "[^A-Za-z0-9_]";
    case 's': return in_bracket ? "[:space:]" : "[[:space:]]";
    case 'S': return in_bracket ? NULL : "[^[:space:]]";
    default: return NULL;
    }
}

/* Java's pattern as a POSIX ERE anchored at both ends, in out (a buffer of
 * at least OUT_MAX(len) bytes); NULL with why set for what POSIX cannot
 * say. */
static char *
translate(const gr_str_t *p, char *out, char *why, size_t why_len)
{
    size_t o = 0;
    bool in_bracket = false, after_quant = false, prev_quant;
    int32_t bracket_start = 0;

    out[o++] = '^';
    out[o++] = '(';
    for (int32_t i = 0; i < p->len; i++) {
        char c = p->ptr[i];
        if (c == '\0') {
            snprintf(why, why_len, "NUL at index %d", (int)i);
            return NULL;
        }
        if (in_bracket) {
            if (c == ']' && i > bracket_start) {
                in_bracket = false;
            } else if (c == '\\' && i + 1 < p->len) {
                const char *x = class_escape(p->ptr[i + 1], true);
                char n = p->ptr[i + 1];
                if (x == NULL && strchr("\\]-^[", n) == NULL) {
                    snprintf(why, why_len, "unsupported escape \\%c in a "
                             "character class at index %d", n, (int)i);
                    return NULL;
                }
                i++;
                if (x != NULL) {
                    size_t l = strlen(x);
                    memcpy(out + o, x, l);
                    o += l;
                } else if (n == ']' || n == '-' || n == '^' || n == '[') {
                    /* a literal: POSIX takes these by place; use a class */
                    const char *lit = n == ']'   ? "[.].]"
                                      : n == '-' ? "[.-.]"
                                      : n == '^' ? "[.^.]"
                                                 : "[.[.]";
                    memcpy(out + o, lit, 5);
                    o += 5;
                } else {
                    out[o++] = '\\';
                }
                continue;
            }
            out[o++] = c;
            continue;
        }
        prev_quant = after_quant;
        after_quant = false;
        if (c == '[') {
            in_bracket = true;
            out[o++] = c;
            bracket_start = i + 1;
            if (i + 1 < p->len && p->ptr[i + 1] == '^') {
                out[o++] = '^';
                i++;
                bracket_start = i + 1;
            }
            continue;
        }
        if (c == '\\') {
            const char *x;
            char n;
            if (i + 1 >= p->len) {
                snprintf(why, why_len, "trailing backslash");
                return NULL;
            }
            n = p->ptr[++i];
            x = class_escape(n, false);
            if (x != NULL) {
                size_t l = strlen(x);
                memcpy(out + o, x, l);
                o += l;
            } else if (strchr(".[]{}()\\*+?^$|/-", n) != NULL) {
                out[o++] = '\\';
                out[o++] = n;
            } else {
                snprintf(why, why_len, "unsupported escape \\%c at index %d",
                         n, (int)i - 1);
                return NULL;
            }
            continue;
        }
        if (c == '(' && i + 1 < p->len && p->ptr[i + 1] == '?') {
            snprintf(why, why_len, "unsupported group construct (? at index "
                     "%d", (int)i);
            return NULL;
        }
        if ((c == '?' || c == '+') && prev_quant) {
            snprintf(why, why_len, "unsupported %s quantifier at index %d",
                     c == '?' ? "reluctant" : "possessive", (int)i);
            return NULL;
        }
        after_quant = strchr("*+?}", c) != NULL;
        out[o++] = c;
    }
    if (in_bracket) {
        snprintf(why, why_len, "unclosed character class near index %d",
                 (int)p->len);
        return NULL;
    }
    out[o++] = ')';
    out[o++] = '$';
    out[o] = '\0';
    return out;
}

static int
compile(gr_regex_t *re, const gr_str_t *pattern, char *why, size_t why_len,
        int flags)
{
    char *buf;
    int rc;

    re->compiled = false;
    if (pattern->len < 0) {
        snprintf(why, why_len, "null pattern");
        return -1;
    }
    buf = malloc(OUT_MAX(pattern->len));
    if (buf == NULL) {
        snprintf(why, why_len, "out of memory");
        return -1;
    }
    if (translate(pattern, buf, why, why_len) == NULL) {
        free(buf);
        return -1;
    }
    rc = regcomp(&re->re, buf, REG_EXTENDED | flags);
    free(buf);
    if (rc != 0) {
        regerror(rc, NULL, why, why_len);
        return -1;
    }
    re->compiled = true;
    return 0;
}

int
gr_regex_compile(gr_regex_t *re, const gr_str_t *pattern, char *why,
                 size_t why_len)
{
    return compile(re, pattern, why, why_len, REG_NOSUB);
}

int
gr_regex_match_groups(const gr_str_t *pattern, const char *s,
                      regmatch_t *groups, int n, char *why, size_t why_len)
{
    gr_regex_t re;
    regmatch_t m[11];
    int rc;
    if (n > 10)
        n = 10;
    if (compile(&re, pattern, why, why_len, 0) != 0)
        return -1;
    /* group 1 is the whole pattern's wrapping "^(...)$" */
    rc = regexec(&re.re, s, (size_t)n + 1, m, 0) == 0;
    regfree(&re.re);
    for (int i = 0; rc && i < n; i++)
        groups[i] = i == 0 ? m[0] : m[i + 1];
    return rc;
}

bool
gr_regex_matches(const gr_regex_t *re, const char *s, size_t len)
{
    regmatch_t m[1];
    if (!re->compiled || memchr(s, '\0', len) != NULL)
        return false;
    m[0].rm_so = 0;
    m[0].rm_eo = (regoff_t)len;
    return regexec(&re->re, s, 0, m, REG_STARTEND) == 0;
}

void
gr_regex_free(gr_regex_t *re)
{
    if (re->compiled)
        regfree(&re->re);
    re->compiled = false;
}
