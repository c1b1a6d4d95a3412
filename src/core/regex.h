/*
 * Regular expressions from clients, in Java's syntax (java.util.regex, as
 * Kafka compiles them), matched with the C library's POSIX extended
 * expressions. The common subset means the same in both: literals, . * +
 * ? {m,n} | ( ) [ ] ^ $ and escaped metacharacters; Java's \d \D \w \W
 * \s \S are translated to POSIX classes. Java-only syntax (lookaround,
 * reluctant and possessive quantifiers, (?flags), \b, backreferences'
 * Java forms) is refused as invalid. Matches are whole-string, as Java's
 * Matcher.matches().
 */
#ifndef GR_CORE_REGEX_H
#define GR_CORE_REGEX_H

#include "core/str.h"

#include <regex.h>
#include <stdbool.h>

typedef struct gr_regex {
    regex_t re;
    bool compiled;
} gr_regex_t;

/* Compiles pattern into re. Returns 0, or -1 with a reason in why
 * (why_len bytes, NUL-terminated). On failure re needs no gr_regex_free. */
int gr_regex_compile(gr_regex_t *re, const gr_str_t *pattern, char *why,
                     size_t why_len);

/* Whether the whole of s (len bytes; it may hold NUL bytes, which never
 * match) matches. */
bool gr_regex_matches(const gr_regex_t *re, const char *s, size_t len);

void gr_regex_free(gr_regex_t *re);

/* Matches pattern against the whole of the string s, filling groups[0]
 * (the whole match) to groups[n - 1] (n at most 10; unmatched groups
 * rm_so -1). 1 on a match, 0 none, -1 invalid pattern (why filled). */
int gr_regex_match_groups(const gr_str_t *pattern, const char *s,
                          regmatch_t *groups, int n, char *why,
                          size_t why_len);

#endif
