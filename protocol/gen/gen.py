#!/usr/bin/env python3
"""Gregor's protocol code generator.

Reads the schemas SCHEMA_DIR/SCHEMAS names (syntax in protocol/gen/README)
and writes, into an output directory, one <schema>.h/.c pair per schema plus
api_keys.h, proto_table.h and proto_table.c. Output is deterministic; stale
.c/.h files in the output directory are deleted. With --mk it writes instead
the build's lists of those files as a make fragment (Makefile.am includes
it). Python 3 standard library only.

usage: gen.py SCHEMA_DIR OUT_DIR
       gen.py --mk SCHEMA_DIR
"""

import os
import re
import sys

PRIMS = {
    # type: (C type, fixed size or None, reader, writer)
    'bool': ('bool', 1),
    'int8': ('int8_t', 1),
    'int16': ('int16_t', 2),
    'uint16': ('uint16_t', 2),
    'int32': ('int32_t', 4),
    'uint32': ('uint32_t', 4),
    'int64': ('int64_t', 8),
    'float64': ('double', 8),
    'uuid': ('gr_uuid_t', 16),
    'string': ('gr_str_t', None),
    'bytes': ('gr_bytes_t', None),
    'records': ('gr_records_t', None),
}
INTS = ('int8', 'int16', 'uint16', 'int32', 'uint32', 'int64')
MAXV = 0x7fff


class SchemaError(Exception):
    pass


class Versions:
    """An inclusive range [lo, hi]; empty when lo > hi."""

    def __init__(self, lo, hi):
        self.lo, self.hi = lo, hi

    @staticmethod
    def parse(s, where):
        if s == 'none':
            return Versions(1, 0)
        m = re.fullmatch(r'(\d+)\+', s)
        if m:
            return Versions(int(m.group(1)), MAXV)
        m = re.fullmatch(r'(\d+)-(\d+)', s)
        if m:
            lo, hi = int(m.group(1)), int(m.group(2))
            if lo > hi:
                raise SchemaError('%s: empty version range %s' % (where, s))
            return Versions(lo, hi)
        m = re.fullmatch(r'\d+', s)
        if m:
            return Versions(int(s), int(s))
        raise SchemaError('%s: bad versions "%s"' % (where, s))

    def empty(self):
        return self.lo > self.hi

    def intersect(self, o):
        return Versions(max(self.lo, o.lo), min(self.hi, o.hi))

    def contains(self, o):
        return o.empty() or (self.lo <= o.lo and o.hi <= self.hi)

    def cond(self, ctx, var='ver'):
        """C condition for 'var in self', given var is known to lie in ctx.
        Returns None when always true, '0' when never."""
        r = self.intersect(ctx)
        if r.empty():
            return '0'
        parts = []
        if r.lo > ctx.lo:
            parts.append('%s >= %d' % (var, r.lo))
        if r.hi < ctx.hi:
            parts.append('%s <= %d' % (var, r.hi))
        if not parts:
            return None
        return ' && '.join(parts)

    def __str__(self):
        if self.empty():
            return 'none'
        if self.hi == MAXV:
            return '%d+' % self.lo
        return '%d-%d' % (self.lo, self.hi)


class Field:
    def __init__(self):
        self.name = None
        self.type = None       # prim name or struct name
        self.array = False
        self.struct = None     # Struct, when type is a struct
        self.versions = None
        self.nullable = Versions(1, 0)
        self.tag = None
        self.tagged = None
        self.default = None
        self.ignorable = False
        self.where = ''

    def is_prim(self):
        return self.type in PRIMS


class Struct:
    def __init__(self, name, cname, versions):
        self.name = name       # schema type name (CamelCase) or section name
        self.cname = cname     # C type stem, e.g. produce_request_topic_data
        self.versions = versions
        self.fields = []


class Schema:
    def __init__(self, path):
        self.path = path
        self.base = os.path.splitext(os.path.basename(path))[0]
        self.kind = None      # 'api' or 'data'
        self.key = None
        self.name = None
        self.valid = None
        self.flexible = Versions(1, 0)
        self.unstable_latest = False
        self.sections = {}    # 'request' | 'response' | 'fields' -> Struct
        self.structs = {}     # section -> [Struct] in definition order


def snake(name):
    s = re.sub(r'([a-z0-9])([A-Z])', r'\1_\2', name)
    s = re.sub(r'([A-Z]+)([A-Z][a-z])', r'\1_\2', s)
    return s.lower()


def struct_cname(stem, name):
    """C stem of a struct: <message>_<struct>, without saying the message
    twice when the struct's name already starts with it."""
    sn = snake(name)
    if sn.startswith(stem + '_'):
        return sn
    return stem + '_' + sn


def parse_schema(path):
    sc = Schema(path)
    lines = []
    with open(path) as f:
        for no, raw in enumerate(f, 1):
            line = raw.split('#', 1)[0].rstrip()
            if not line.strip():
                continue
            if '\t' in raw:
                raise SchemaError('%s:%d: tabs are not allowed' % (path, no))
            indent = len(line) - len(line.lstrip(' '))
            if indent % 2:
                raise SchemaError('%s:%d: odd indentation' % (path, no))
            lines.append((no, indent // 2, line.split()))

    i = 0
    # Header
    while i < len(lines) and lines[i][1] == 0 and lines[i][2][0] in (
            'api', 'data', 'valid', 'flexible', 'unstable-latest'):
        no, _, t = lines[i]
        where = '%s:%d' % (path, no)
        if t[0] == 'api':
            if len(t) != 3:
                raise SchemaError('%s: api <key> <name>' % where)
            sc.kind, sc.key, sc.name = 'api', int(t[1]), t[2]
        elif t[0] == 'data':
            if len(t) != 2:
                raise SchemaError('%s: data <name>' % where)
            sc.kind, sc.name = 'data', t[1]
        elif t[0] == 'valid':
            sc.valid = Versions.parse(t[1], where)
        elif t[0] == 'flexible':
            sc.flexible = Versions.parse(t[1], where)
        else:
            sc.unstable_latest = True
        i += 1
    if sc.kind is None or sc.valid is None:
        raise SchemaError('%s: needs "api"/"data" and "valid" lines' % path)
    if sc.name != sc.base:
        raise SchemaError('%s: name %s does not match the file name' %
                          (path, sc.name))

    want = ('request', 'response') if sc.kind == 'api' else ('fields',)
    while i < len(lines):
        no, ind, t = lines[i]
        where = '%s:%d' % (path, no)
        if ind != 0 or len(t) != 1 or t[0] not in want or t[0] in sc.sections:
            raise SchemaError('%s: expected a section (%s)' %
                              (where, ', '.join(want)))
        sec = t[0]
        stem = sc.name + ('' if sec == 'fields' else '_' + sec)
        top = Struct(sec, stem, sc.valid)
        sc.sections[sec] = top
        sc.structs[sec] = []
        i += 1
        commons = {}
        # first pass: collect common struct names, so fields may use them
        j = i
        while j < len(lines) and lines[j][1] > 0:
            if lines[j][1] == 1 and lines[j][2][0] == 'common':
                commons[lines[j][2][1]] = None
            j += 1
        i = parse_fields(sc, sec, stem, top, lines, i, 1, commons)
    for s in want:
        if s not in sc.sections:
            raise SchemaError('%s: missing section %s' % (path, s))
    resolve(sc)
    return sc


def parse_fields(sc, sec, stem, parent, lines, i, depth, commons):
    while i < len(lines) and lines[i][1] >= depth:
        no, ind, t = lines[i]
        where = '%s:%d' % (sc.path, no)
        if ind != depth:
            raise SchemaError('%s: unexpected indentation' % where)
        if t[0] == 'common':
            if depth != 1:
                raise SchemaError('%s: common structs sit at section level'
                                  % where)
            name = t[1]
            vers = Versions.parse(t[2], where) if len(t) > 2 else Versions(
                0, MAXV)
            st = Struct(name, struct_cname(stem, name), vers)
            commons[name] = st
            sc.structs[sec].append(st)
            i = parse_fields(sc, sec, stem, st, lines, i + 1, depth + 1,
                             commons)
            if not st.fields:
                raise SchemaError('%s: common struct %s has no fields' %
                                  (where, name))
            continue
        f = Field()
        f.where = where
        if len(t) < 2:
            raise SchemaError('%s: field needs a name and a type' % where)
        f.name = t[0]
        if not re.fullmatch(r'[a-z][a-z0-9_]*', f.name):
            raise SchemaError('%s: field name %s is not snake_case' %
                              (where, f.name))
        ty = t[1]
        if ty.startswith('[]'):
            f.array = True
            ty = ty[2:]
        f.type = ty
        rest = t[2:]
        f.versions = Versions(0, MAXV)
        if rest and re.fullmatch(r'\d+(\+|-\d+)?|none', rest[0]):
            f.versions = Versions.parse(rest[0], where)
            rest = rest[1:]
        for opt in rest:
            if opt == 'ignorable':
                f.ignorable = True
            elif opt.startswith('nullable='):
                f.nullable = Versions.parse(opt[9:], where)
            elif opt.startswith('tag='):
                f.tag = int(opt[4:])
            elif opt.startswith('tagged='):
                f.tagged = Versions.parse(opt[7:], where)
            elif opt.startswith('default='):
                f.default = opt[8:]
            else:
                raise SchemaError('%s: unknown option %s' % (where, opt))
        if f.tag is not None and f.tagged is None:
            f.tagged = f.versions
        i += 1
        if ty not in PRIMS:
            if i < len(lines) and lines[i][1] > depth:
                if ty in commons:
                    raise SchemaError('%s: %s is a common struct; it takes '
                                      'no fields here' % (where, ty))
                st = Struct(ty, struct_cname(stem, ty), f.versions)
                sc.structs[sec].append(st)
                i = parse_fields(sc, sec, stem, st, lines, i, depth + 1,
                                 commons)
                f.struct = st
            elif ty in commons:
                f.struct = ty  # resolved later
            else:
                raise SchemaError('%s: unknown type %s' % (where, ty))
        elif i < len(lines) and lines[i][1] > depth:
            raise SchemaError('%s: a %s field has no fields' % (where, ty))
        parent.fields.append(f)
    return i


def resolve(sc):
    for sec, structs in sc.structs.items():
        byname = {}
        for st in structs:
            if st.name in byname:
                raise SchemaError('%s: struct %s defined twice in %s' %
                                  (sc.path, st.name, sec))
            byname[st.name] = st
        for st in [sc.sections[sec]] + structs:
            for f in st.fields:
                if isinstance(f.struct, str):
                    f.struct = byname[f.struct]
    validate(sc)


def validate(sc):
    if sc.unstable_latest and sc.valid.lo == sc.valid.hi:
        raise SchemaError('%s: unstable-latest on a single version' % sc.path)

    def check_struct(st, ctx):
        names = set()
        tags = set()
        for f in st.fields:
            if f.name in names:
                raise SchemaError('%s: duplicate field %s' % (f.where, f.name))
            names.add(f.name)
            if not sc.valid.contains(f.versions.intersect(sc.valid)):
                raise SchemaError('%s: versions outside the valid range' %
                                  f.where)
            if f.tag is not None:
                if f.tag in tags:
                    raise SchemaError('%s: duplicate tag %d' % (f.where, f.tag))
                tags.add(f.tag)
                if not sc.flexible.contains(f.tagged.intersect(sc.valid)):
                    raise SchemaError('%s: tagged in non-flexible versions' %
                                      f.where)
                # The codecs never put a tagged field in the fixed part, so
                # a field that Kafka sends untagged in some versions (its
                # versions wider than its tagged versions) cannot be
                # described; refuse it rather than drop it from the wire.
                if not f.tagged.contains(f.versions.intersect(sc.valid)):
                    raise SchemaError('%s: present but untagged in some '
                                      'versions (versions %s, tagged %s)' %
                                      (f.where, f.versions, f.tagged))
            if not f.nullable.empty():
                ok = f.array or f.type in ('string', 'bytes', 'records') or \
                    (f.struct is not None and f.tag is None)
                if not ok:
                    raise SchemaError('%s: %s cannot be nullable' %
                                      (f.where, f.type))
            if f.default is not None:
                check_default(f)
            if f.struct is not None:
                check_struct(f.struct, ctx.intersect(f.versions))

    def check_default(f):
        d = f.default
        if f.array or f.struct is not None:
            if d != 'null':
                raise SchemaError('%s: only null is a default for %s' %
                                  (f.where, f.type))
            if f.nullable.empty():
                raise SchemaError('%s: default null on a non-nullable field'
                                  % f.where)
            return
        if f.type in INTS:
            try:
                v = int(d, 0)
            except ValueError:
                raise SchemaError('%s: default %s is not an integer' %
                                  (f.where, d))
            bits = {'int8': 8, 'int16': 16, 'uint16': 16, 'int32': 32,
                    'uint32': 32, 'int64': 64}[f.type]
            if f.type.startswith('u'):
                lo, hi = 0, (1 << bits) - 1
            else:
                lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
            if not lo <= v <= hi:
                raise SchemaError('%s: default %s does not fit %s' %
                                  (f.where, d, f.type))
        elif f.type == 'bool':
            if d not in ('true', 'false'):
                raise SchemaError('%s: bool default must be true/false' %
                                  f.where)
        elif f.type == 'float64':
            float(d)
        elif f.type in ('string', 'bytes', 'records'):
            if d == 'null' and f.nullable.empty():
                raise SchemaError('%s: default null on a non-nullable field'
                                  % f.where)
            if f.type != 'string' and d != 'null':
                raise SchemaError('%s: %s defaults only to null' %
                                  (f.where, f.type))
        elif f.type == 'uuid':
            raise SchemaError('%s: uuid takes no default' % f.where)

    for sec, top in sc.sections.items():
        check_struct(top, sc.valid)
        for st in sc.structs[sec]:
            check_struct(st, sc.valid)


# ---------------------------------------------------------------- emission


class Out:
    def __init__(self):
        self.lines = []
        self.ind = 0

    def __call__(self, s=''):
        if s:
            self.lines.append('    ' * self.ind + s)
        else:
            self.lines.append('')

    def block(self, head):
        self(head + ' {')
        self.ind += 1

    def end(self, tail=''):
        self.ind -= 1
        self('}' + tail)

    def text(self):
        return '\n'.join(self.lines) + '\n'


def nullable_struct(f):
    """A struct field that may be null: Kafka writes an int8 before it, -1
    for null, 1 for a struct (a struct of which every version is nullable
    is null by default)."""
    return f.struct is not None and not f.array and not f.nullable.empty()


def prim_min(t, flex):
    """The fewest bytes a primitive takes on the wire: its fixed size, or
    the length prefix of an empty (or null) string, bytes or records."""
    if PRIMS[t][1] is not None:
        return PRIMS[t][1]
    if flex:
        return 1  # compact length, a uvarint
    return 2 if t == 'string' else 4


def min_size(sc, st, ver):
    """The fewest bytes struct st takes on the wire in version ver: every
    field present untagged at its smallest (arrays and strings empty or
    null, nullable structs null), tagged fields absent, plus the count of
    tagged fields (one byte) when ver is flexible."""
    flex = sc.flexible.lo <= ver <= sc.flexible.hi
    n = 0
    for f in st.fields:
        if f.tag is not None:
            continue
        if not f.versions.lo <= ver <= f.versions.hi:
            continue
        if f.array:
            n += 1 if flex else 4
        elif f.struct is not None:
            if nullable_struct(f) and f.nullable.lo <= ver <= f.nullable.hi:
                n += 1
            else:  # no null marker where the struct cannot be null
                n += min_size(sc, f.struct, ver)
        else:
            n += prim_min(f.type, flex)
    if flex:
        n += 1
    return n


def ctype(f):
    if f.struct is not None:
        return 'gr_%s_t' % f.struct.cname
    return PRIMS[f.type][0]


def c_default(f):
    d = f.default
    t = f.type
    if t in INTS:
        if d is None:
            return '0'
        v = int(d, 0)
        if t == 'int64':
            return '%dLL' % v if v != -(1 << 63) else 'INT64_MIN'
        if t == 'uint32':
            return '%dU' % v
        if t == 'int32' and v == -(1 << 31):
            return 'INT32_MIN'
        return str(v)
    if t == 'bool':
        return 'true' if d == 'true' else 'false'
    if t == 'float64':
        return repr(float(d)) if d is not None else '0.0'
    return None


def flex_expr(sc, ctx):
    c = sc.flexible.cond(ctx)
    if c is None:
        return '1'
    return '(%s)' % c


def struct_order(sc, sec):
    """Structs of a section, dependencies first."""
    done = []
    seen = set()

    def visit(st):
        if id(st) in seen:
            return
        seen.add(id(st))
        for f in st.fields:
            if f.struct is not None:
                visit(f.struct)
        done.append(st)

    for st in sc.structs[sec]:
        visit(st)
    return done


def gen_header(sc):
    o = Out()
    guard = 'GR_PROTO_GEN_%s_H' % sc.name.upper()
    o('/* Generated by protocol/gen from protocol/%s.schema. Do not edit. */'
      % sc.name)
    o('#ifndef ' + guard)
    o('#define ' + guard)
    o()
    o('#include "proto/wire.h"')
    o()
    for sec in sc.sections:
        for st in struct_order(sc, sec) + [sc.sections[sec]]:
            o('typedef struct gr_%s {' % st.cname)
            o.ind += 1
            if not st.fields:
                o('char unused_;')
            for f in st.fields:
                if f.array:
                    o('%s *%s;' % (ctype(f), f.name))
                    o('int32_t %s_cnt; /* -1: null */' % f.name)
                else:
                    o('%s %s;' % (ctype(f), f.name))
                    if nullable_struct(f):
                        o('bool %s_null; /* a nullable struct: null */' %
                          f.name)
            o.end(' gr_%s_t;' % st.cname)
            if st is not sc.sections[sec]:
                o('void gr_%s_init(gr_%s_t *m);' % (st.cname, st.cname))
                # one element's encoded size: handlers bound an answer
                # as they build it (src/api/)
                o('size_t gr_%s_size(const gr_%s_t *m, int16_t ver);' %
                  (st.cname, st.cname))
            o()
        m = sc.sections[sec].cname
        o('void gr_%s_init(gr_%s_t *m);' % (m, m))
        o('int gr_%s_decode(gr_reader_t *r, int16_t ver, gr_arena_t *a,'
          ' gr_%s_t *m);' % (m, m))
        o('size_t gr_%s_size(const gr_%s_t *m, int16_t ver);' % (m, m))
        o('void gr_%s_encode(gr_writer_t *w, const gr_%s_t *m, int16_t ver);'
          % (m, m))
        o('void gr_%s_print(gr_buf_t *b, const gr_%s_t *m, int16_t ver);'
          % (m, m))
        o()
    o('#endif')
    return o.text()


class CGen:
    def __init__(self, sc):
        self.sc = sc
        self.o = Out()

    def run(self):
        sc, o = self.sc, self.o
        o('/* Generated by protocol/gen from protocol/%s.schema. Do not edit. */'
          % sc.name)
        o('#include "proto/gen/%s.h"' % sc.name)
        o()
        o('#include <string.h>')
        o()
        for sec in sc.sections:
            order = struct_order(sc, sec)
            for st in order:
                for fn in ('is_default', 'decode', 'size', 'encode', 'print'):
                    if fn == 'is_default' and not self.tagged_struct(st):
                        continue
                    o(self.proto(fn, st, static=True) + ';')
            o()
            for st in order + [sc.sections[sec]]:
                static = st is not sc.sections[sec]
                self.gen_init(st, False)
                if static and self.tagged_struct(st):
                    self.gen_is_default(st)
                self.gen_decode(st, static)
                self.gen_size(st, static)
                if static:
                    o('size_t')
                    o('gr_%s_size(const gr_%s_t *m, int16_t ver)' %
                      (st.cname, st.cname))
                    o('{')
                    o('    return size_%s(m, ver);' % st.cname)
                    o('}')
                    o()
                self.gen_encode(st, static)
                self.gen_print(st, static)
        return o.text()

    def tagged_struct(self, st):
        """Whether st is the type of a tagged field (needs is_default),
        directly or nested in one."""
        if not hasattr(self, '_tagged'):
            self._tagged = set()

            def mark(s):
                if id(s) in self._tagged:
                    return
                self._tagged.add(id(s))
                for f in s.fields:
                    if f.struct is not None:
                        mark(f.struct)
            for sec in self.sc.sections:
                for s in [self.sc.sections[sec]] + self.sc.structs[sec]:
                    for f in s.fields:
                        if f.tag is not None and f.struct is not None and \
                                not f.array:
                            mark(f.struct)
        return id(st) in self._tagged

    def proto(self, fn, st, static):
        n = ('%s_' % fn) + st.cname if static else 'gr_%s_%s' % (st.cname, fn)
        if fn == 'init':
            args = 'gr_%s_t *m' % st.cname
            ret = 'void'
        elif fn == 'is_default':
            args = 'const gr_%s_t *m' % st.cname
            ret = 'int'
        elif fn == 'decode':
            args = ('gr_reader_t *r, int16_t ver, gr_arena_t *a, gr_%s_t *m'
                    % st.cname)
            ret = 'int'
        elif fn == 'size':
            args = 'const gr_%s_t *m, int16_t ver' % st.cname
            ret = 'size_t'
        elif fn == 'encode':
            args = 'gr_writer_t *w, const gr_%s_t *m, int16_t ver' % st.cname
            ret = 'void'
        else:
            args = 'gr_buf_t *b, const gr_%s_t *m, int16_t ver' % st.cname
            ret = 'void'
        return '%s%s\n%s(%s)' % ('static ' if static else '', ret, n, args)

    def head(self, fn, st, static):
        p = self.proto(fn, st, static)
        for line in p.split('\n'):
            self.o(line)
        self.o('{')
        self.o.ind += 1

    def tail(self):
        self.o.end()
        self.o()

    def unused(self, *names):
        for n in names:
            self.o('(void)%s;' % n)

    # --- init
    def gen_init(self, st, static):
        o = self.o
        self.head('init', st, static)
        o('memset(m, 0, sizeof(*m));')
        for f in st.fields:
            if f.array:
                if f.default == 'null':
                    o('m->%s_cnt = -1;' % f.name)
            elif f.struct is not None:
                o('gr_%s_init(&m->%s);' % (f.struct.cname, f.name))
                if nullable_struct(f) and f.default == 'null':
                    o('m->%s_null = true;' % f.name)
            elif f.type in ('string', 'bytes', 'records'):
                if f.default == 'null':
                    o('m->%s.len = -1;' % f.name)
                elif f.type == 'string' and f.default not in (None, '""'):
                    s = f.default.strip('"')
                    o('m->%s.ptr = "%s";' % (f.name, s))
                    o('m->%s.len = %d;' % (f.name, len(s)))
            elif f.default is not None:
                o('m->%s = %s;' % (f.name, c_default(f)))
        self.tail()

    # --- is_default (for tagged struct fields)
    def field_is_default(self, f):
        n = 'm->' + f.name
        if f.array:
            return '%s_cnt == %d' % (n, -1 if f.default == 'null' else 0)
        if nullable_struct(f):
            return '%s_null' % n
        if f.struct is not None:
            return 'is_default_%s(&%s)' % (f.struct.cname, n)
        if f.type in ('string', 'bytes', 'records'):
            if f.default == 'null':
                return '%s.len < 0' % n
            if f.type == 'string' and f.default not in (None, '""'):
                s = f.default.strip('"')
                return 'gr_str_eq_cstr(&%s, "%s")' % (n, s)
            return '%s.len <= 0' % n
        if f.type == 'uuid':
            return 'gr_uuid_is_zero(&%s)' % n
        return '%s == %s' % (n, c_default(f))

    def gen_is_default(self, st):
        o = self.o
        self.head('is_default', st, True)
        conds = [self.field_is_default(f) for f in st.fields]
        if not conds:
            o('(void)m;')
            o('return 1;')
        else:
            o('return ' + ('\n        && '.join('(%s)' % c for c in conds)) +
              ';')
        self.tail()

    # --- decode
    def read_prim(self, f, dst, flex_s, null_s):
        t = f.type
        if t == 'string':
            return 'gr_rd_str(r, &%s, %s, %s);' % (dst, flex_s, null_s)
        if t == 'bytes':
            return 'gr_rd_bytes(r, &%s, %s, %s);' % (dst, flex_s, null_s)
        if t == 'records':
            return 'gr_rd_records(r, &%s, %s, %s);' % (dst, flex_s, null_s)
        if t == 'uuid':
            return 'gr_rd_uuid(r, &%s);' % dst
        if t == 'bool':
            return '%s = gr_rd_i8(r) != 0;' % dst
        if t == 'float64':
            return '%s = gr_rd_f64(r);' % dst
        fn = {'int8': 'i8', 'int16': 'i16', 'uint16': 'u16', 'int32': 'i32',
              'uint32': 'u32', 'int64': 'i64'}[t]
        return '%s = gr_rd_%s(r);' % (dst, fn)

    def null_expr(self, f, ctx):
        c = f.nullable.cond(ctx)
        if c is None:
            return '1'
        if c == '0':
            return '0'
        return '(%s)' % c

    def elem_min_expr(self, f, ctx):
        """C expression: the fewest bytes one element of array f takes on
        the wire in version ver (within ctx; see min_size), so that a count
        the bytes left cannot hold fails before anything is allocated. At
        least 1, as Kafka's readers check a count against the bytes left."""
        sc = self.sc
        runs = []
        for v in range(ctx.lo, min(ctx.hi, sc.valid.hi) + 1):
            if f.struct is not None:
                m = min_size(sc, f.struct, v)
            else:
                m = prim_min(f.type, sc.flexible.lo <= v <= sc.flexible.hi)
            m = max(1, m)
            if runs and runs[-1][2] == m:
                runs[-1][1] = v
            else:
                runs.append([v, v, m])
        if not runs:
            return '1'
        expr = str(runs[-1][2])
        for lo, hi, m in reversed(runs[:-1]):
            expr = '(ver <= %d ? %d : %s)' % (hi, m, expr)
        return expr

    def decode_value(self, f, ctx, flex_s):
        """Statements reading field f (in versions ctx) from r into m."""
        o = self.o
        null_s = self.null_expr(f, ctx)
        if f.array:
            o('{')
            o.ind += 1
            o('int32_t i_, n_ = gr_rd_arraylen(r, %s, %s, %s);' %
              (flex_s, null_s, self.elem_min_expr(f, ctx)))
            o('m->%s_cnt = n_;' % f.name)
            o('m->%s = NULL;' % f.name)
            o('if (n_ > 0) {')
            o.ind += 1
            # r fails if the array cannot be had: nothing to iterate,
            # and no early return (a tagged field's error reaches the
            # outer reader below)
            o('m->%s = gr_rd_alloc(r, a, (size_t)n_ * sizeof(*m->%s));' %
              (f.name, f.name))
            o('if (m->%s == NULL)' % f.name)
            o('    m->%s_cnt = 0;' % f.name)
            o('for (i_ = 0; i_ < n_ && !r->err; i_++)')
            if f.struct is not None:
                o('    decode_%s(r, ver, a, &m->%s[i_]);' %
                  (f.struct.cname, f.name))
            else:
                o('    ' + self.read_prim(f, 'm->%s[i_]' % f.name, flex_s,
                                          '0'))
            o.end()
            o.end()
        elif f.struct is not None:
            if nullable_struct(f):
                o('m->%s_null = %sgr_rd_i8(r) < 0;' %
                  (f.name, '' if null_s == '1' else null_s + ' && '))
                o('if (!m->%s_null)' % f.name)
                o('    decode_%s(r, ver, a, &m->%s);' %
                  (f.struct.cname, f.name))
            else:
                o('decode_%s(r, ver, a, &m->%s);' % (f.struct.cname, f.name))
        else:
            o(self.read_prim(f, 'm->' + f.name, flex_s, null_s))

    def gen_decode(self, st, static):
        sc, o = self.sc, self.o
        ctx = st.versions.intersect(sc.valid)
        self.head('decode', st, static)
        flex_s = flex_expr(sc, ctx)
        o('const int flex = %s;' % flex_s)
        o('(void)flex; (void)a;')
        if static:
            o('gr_%s_init(m);' % st.cname)
        else:
            o('gr_%s_init(m);' % st.cname)
            o('if (ver < %d || ver > %d)' % (sc.valid.lo, sc.valid.hi))
            o('    return gr_rd_fail(r, GR_ERR_UNSUPPORTED);')
        for f in st.fields:
            if f.tag is not None:
                # a tagged field is never in the fixed part when flexible;
                # nor is it present where it is not tagged (validated)
                continue
            c = f.versions.cond(ctx)
            if c == '0':
                continue
            if c is not None:
                o.block('if (%s)' % c)
            self.decode_value(f, ctx.intersect(f.versions), 'flex')
            if c is not None:
                o.end()
        tagged = [f for f in st.fields if f.tag is not None]
        if not sc.flexible.intersect(ctx).empty():
            o.block('if (flex)')
            if tagged:
                o('uint32_t nt_ = gr_rd_uvarint(r), it_;')
                o.block('for (it_ = 0; it_ < nt_ && !r->err; it_++)')
                o('uint32_t tag_ = gr_rd_uvarint(r);')
                o('uint32_t sz_ = gr_rd_uvarint(r);')
                o('gr_reader_t sub_ = gr_rd_sub(r, sz_);')
                o('gr_reader_t *outer_ = r;')
                o('r = &sub_;')
                o.block('switch (tag_)')
                for f in sorted(tagged, key=lambda f: f.tag):
                    o('case %d:' % f.tag)
                    o.ind += 1
                    tctx = ctx.intersect(f.tagged)
                    c = f.tagged.cond(ctx)
                    if c != '0':
                        if c is not None:
                            o.block('if (%s)' % c)
                        self.decode_value(f, tctx, '1')
                        if c is not None:
                            o.end()
                    o('break;')
                    o.ind -= 1
                o('default:')
                o('    break; /* unknown tags are skipped */')
                o.end()
                o('r = outer_;')
                o('r->mem_left = sub_.mem_left;')
                o('if (sub_.err)')
                o('    r->err = sub_.err;')
                o.end()
            else:
                o('gr_rd_skip_tags(r);')
            o.end()
        o('return r->err;')
        self.tail()

    # --- size
    def size_prim(self, f, v, flex_s, null_s):
        t = f.type
        if t in ('string', 'bytes', 'records'):
            fn = {'string': 'str', 'bytes': 'bytes', 'records': 'records'}[t]
            return 'gr_sz_%s(&%s, %s)' % (fn, v, flex_s)
        return str(PRIMS[t][1])

    def size_value(self, f, flex_s, ctx=None):
        """An expression statement list adding f's size to n."""
        o = self.o
        if nullable_struct(f):
            null_s = self.null_expr(f, ctx) if ctx is not None else '1'
            o('n += 1;' if null_s == '1' else 'if (%s)\n        n += 1;' %
              null_s)
            o('if (%s!m->%s_null)' %
              ('' if null_s == '1' else '!(%s) || ' % null_s, f.name))
            o('    n += size_%s(&m->%s, ver);' % (f.struct.cname, f.name))
            return
        if f.array:
            o('n += gr_sz_arraylen(m->%s_cnt, %s);' % (f.name, flex_s))
            if f.struct is not None:
                o('for (int32_t i_ = 0; i_ < m->%s_cnt; i_++)' % f.name)
                o('    n += size_%s(&m->%s[i_], ver);' %
                  (f.struct.cname, f.name))
            elif PRIMS[f.type][1] is not None:
                o('if (m->%s_cnt > 0)' % f.name)
                o('    n += (size_t)m->%s_cnt * %d;' %
                  (f.name, PRIMS[f.type][1]))
            else:
                o('for (int32_t i_ = 0; i_ < m->%s_cnt; i_++)' % f.name)
                o('    n += %s;' % self.size_prim(f, 'm->%s[i_]' % f.name,
                                                  flex_s, '0'))
        elif f.struct is not None:
            o('n += size_%s(&m->%s, ver);' % (f.struct.cname, f.name))
        else:
            o('n += %s;' % self.size_prim(f, 'm->' + f.name, flex_s, ''))

    def tagged_present(self, f, ctx):
        c = f.tagged.cond(ctx)
        d = self.field_is_default(f)
        if c is None:
            return '!(%s)' % d
        return '(%s) && !(%s)' % (c, d)

    def gen_size(self, st, static):
        sc, o = self.sc, self.o
        ctx = st.versions.intersect(sc.valid)
        self.head('size', st, static)
        o('const int flex = %s;' % flex_expr(sc, ctx))
        o('size_t n = 0;')
        o('(void)flex; (void)m; (void)ver;')
        for f in st.fields:
            if f.tag is not None:
                continue
            c = f.versions.cond(ctx)
            if c == '0':
                continue
            if c is not None:
                o.block('if (%s)' % c)
            self.size_value(f, 'flex', ctx.intersect(f.versions))
            if c is not None:
                o.end()
        tagged = sorted([f for f in st.fields if f.tag is not None],
                        key=lambda f: f.tag)
        if not sc.flexible.intersect(ctx).empty():
            o.block('if (flex)')
            if tagged:
                o('uint32_t nt_ = 0;')
                for f in tagged:
                    if f.tagged.cond(ctx) == '0':
                        continue
                    o.block('if (%s)' % self.tagged_present(f, ctx))
                    o('size_t before_ = n, fs_;')
                    self.size_value(f, '1')
                    o('fs_ = n - before_;')
                    o('n += gr_sz_uvarint(%d) + gr_sz_uvarint((uint32_t)fs_);'
                      % f.tag)
                    o('nt_++;')
                    o.end()
                o('n += gr_sz_uvarint(nt_);')
            else:
                o('n += 1;')
            o.end()
        o('return n;')
        self.tail()

    # --- encode
    def write_prim(self, f, v, flex_s, null_s):
        t = f.type
        # a null where the version cannot carry one goes out as empty
        if t == 'string':
            return 'gr_wr_str(w, &%s, %s, %s);' % (v, flex_s, null_s)
        if t == 'bytes':
            return 'gr_wr_bytes(w, &%s, %s, %s);' % (v, flex_s, null_s)
        if t == 'records':
            return 'gr_wr_records(w, &%s, %s, %s);' % (v, flex_s, null_s)
        if t == 'uuid':
            return 'gr_wr_uuid(w, &%s);' % v
        if t == 'bool':
            return 'gr_wr_i8(w, %s ? 1 : 0);' % v
        if t == 'float64':
            return 'gr_wr_f64(w, %s);' % v
        fn = {'int8': 'i8', 'int16': 'i16', 'uint16': 'u16', 'int32': 'i32',
              'uint32': 'u32', 'int64': 'i64'}[t]
        return 'gr_wr_%s(w, %s);' % (fn, v)

    def encode_value(self, f, ctx, flex_s):
        o = self.o
        null_s = self.null_expr(f, ctx)
        if f.array:
            o('gr_wr_arraylen(w, m->%s_cnt, %s, %s);' %
              (f.name, flex_s, null_s))
            o('for (int32_t i_ = 0; i_ < m->%s_cnt; i_++)' % f.name)
            if f.struct is not None:
                o('    encode_%s(w, &m->%s[i_], ver);' %
                  (f.struct.cname, f.name))
            else:
                o('    ' + self.write_prim(f, 'm->%s[i_]' % f.name, flex_s,
                                           '0'))
        elif nullable_struct(f):
            if null_s != '1':
                o('if (%s)' % null_s)
            o('%sgr_wr_i8(w, m->%s_null ? -1 : 1);' %
              ('' if null_s == '1' else '    ', f.name))
            o('if (%s!m->%s_null)' %
              ('' if null_s == '1' else '!(%s) || ' % null_s, f.name))
            o('    encode_%s(w, &m->%s, ver);' % (f.struct.cname, f.name))
        elif f.struct is not None:
            o('encode_%s(w, &m->%s, ver);' % (f.struct.cname, f.name))
        else:
            o(self.write_prim(f, 'm->' + f.name, flex_s, null_s))

    def gen_encode(self, st, static):
        sc, o = self.sc, self.o
        ctx = st.versions.intersect(sc.valid)
        self.head('encode', st, static)
        o('const int flex = %s;' % flex_expr(sc, ctx))
        o('(void)flex; (void)m; (void)ver; (void)w;')
        for f in st.fields:
            if f.tag is not None:
                continue
            c = f.versions.cond(ctx)
            if c == '0':
                continue
            if c is not None:
                o.block('if (%s)' % c)
            self.encode_value(f, ctx.intersect(f.versions), 'flex')
            if c is not None:
                o.end()
        tagged = sorted([f for f in st.fields if f.tag is not None],
                        key=lambda f: f.tag)
        if not sc.flexible.intersect(ctx).empty():
            o.block('if (flex)')
            if tagged:
                o('uint32_t nt_ = 0;')
                live = [f for f in tagged if f.tagged.cond(ctx) != '0']
                for f in live:
                    o('if (%s)' % self.tagged_present(f, ctx))
                    o('    nt_++;')
                o('gr_wr_uvarint(w, nt_);')
                for f in live:
                    o.block('if (%s)' % self.tagged_present(f, ctx))
                    o('size_t n = 0;')
                    self.size_value(f, '1')
                    o('gr_wr_uvarint(w, %d);' % f.tag)
                    o('gr_wr_uvarint(w, (uint32_t)n);')
                    self.encode_value(f, ctx.intersect(f.tagged), '1')
                    o.end()
            else:
                o('gr_wr_uvarint(w, 0);')
            o.end()
        self.tail()

    # --- print
    def print_prim(self, f, v):
        t = f.type
        if t == 'string':
            return 'gr_pr_str(b, &%s);' % v
        if t == 'bytes':
            if self.sc.name.startswith('sasl_') and f.name == 'auth_bytes':
                return 'gr_pr_masked(b, &%s);' % v
            return 'gr_pr_bytes(b, &%s);' % v
        if t == 'records':
            return 'gr_pr_records(b, &%s);' % v
        if t == 'uuid':
            return 'gr_pr_uuid(b, &%s);' % v
        if t == 'bool':
            return 'gr_buf_puts(b, %s ? "true" : "false");' % v
        if t == 'float64':
            return 'gr_buf_printf(b, "%%g", %s);' % v
        if t == 'int64':
            return 'gr_buf_printf(b, "%%lld", (long long)%s);' % v
        if t in ('uint32',):
            return 'gr_buf_printf(b, "%%u", (unsigned)%s);' % v
        return 'gr_buf_printf(b, "%%d", (int)%s);' % v

    def gen_print(self, st, static):
        sc, o = self.sc, self.o
        ctx = st.versions.intersect(sc.valid)
        self.head('print', st, static)
        o('int first_ = 1;')
        o('(void)m; (void)ver; (void)first_;')
        o('gr_buf_putc(b, \'{\');')
        for f in st.fields:
            vs = f.tagged if f.tag is not None else f.versions
            c = vs.cond(ctx)
            if f.tag is not None:
                fl = sc.flexible.cond(ctx)
                if fl is not None and fl != '0':
                    c = fl if c is None else '%s && %s' % (c, fl)
            if c == '0':
                continue
            if c is not None:
                o.block('if (%s)' % c)
            o('gr_pr_key(b, "%s", &first_);' % f.name)
            if f.array:
                o.block('if (m->%s_cnt < 0)' % f.name)
                o('gr_buf_puts(b, "null");')
                o.end()
                o.block('else')
                o('gr_buf_putc(b, \'[\');')
                o.block('for (int32_t i_ = 0; i_ < m->%s_cnt; i_++)' % f.name)
                o('if (i_)')
                o('    gr_buf_putc(b, \',\');')
                if f.struct is not None:
                    o('print_%s(b, &m->%s[i_], ver);' %
                      (f.struct.cname, f.name))
                else:
                    o(self.print_prim(f, 'm->%s[i_]' % f.name))
                o.end()
                o('gr_buf_putc(b, \']\');')
                o.end()
            elif nullable_struct(f):
                o('if (m->%s_null)' % f.name)
                o('    gr_buf_puts(b, "null");')
                o('else')
                o('    print_%s(b, &m->%s, ver);' % (f.struct.cname, f.name))
            elif f.struct is not None:
                o('print_%s(b, &m->%s, ver);' % (f.struct.cname, f.name))
            else:
                o(self.print_prim(f, 'm->' + f.name))
            if c is not None:
                o.end()
        o('gr_buf_putc(b, \'}\');')
        self.tail()


def gen_fill(schemas):
    """proto_fill.c: test helpers that fill a message with deterministic,
    non-default values (round-trip tests and fuzz seeds). Not linked into
    the broker."""
    apis = sorted([s for s in schemas if s.kind == 'api'], key=lambda s: s.key)
    datas = sorted([s for s in schemas if s.kind == 'data'],
                   key=lambda s: s.name)
    o = Out()
    o('/* Generated by protocol/gen from the schemas in protocol/. Do not edit. */')
    o('#include "proto/proto_fill.h"')
    o('#include "proto/gen/proto_table.h"')
    o()
    o('#include <stdio.h>')
    o('#include <string.h>')
    o()
    for sc in apis + datas:
        for sec in sc.sections:
            for st in struct_order(sc, sec) + [sc.sections[sec]]:
                o('static void fill_%s(gr_%s_t *m, gr_arena_t *a, uint32_t s);'
                  % (st.cname, st.cname))
    o()
    for sc in apis + datas:
        for sec in sc.sections:
            for st in struct_order(sc, sec) + [sc.sections[sec]]:
                o('static void')
                o('fill_%s(gr_%s_t *m, gr_arena_t *a, uint32_t s)' %
                  (st.cname, st.cname))
                o('{')
                o.ind += 1
                o('gr_%s_init(m);' % st.cname if st is sc.sections[sec]
                  else 'memset(m, 0, sizeof(*m));')
                o('(void)a; (void)s;')
                for k, f in enumerate(st.fields):
                    seed = 's * 31u + %du' % (k + 1)
                    if f.array:
                        nullable = not f.nullable.empty()
                        o('{')
                        o.ind += 1
                        o('uint32_t t_ = %s;' % seed)
                        if nullable:
                            o('int32_t n_ = t_ % 7u == 3u ? -1 : '
                              '(int32_t)(t_ % 3u);')
                        else:
                            o('int32_t n_ = (int32_t)(t_ % 3u);')
                        o('m->%s_cnt = n_;' % f.name)
                        o('m->%s = n_ > 0 ? gr_arena_zalloc(a, (size_t)n_ * '
                          'sizeof(*m->%s)) : NULL;' % (f.name, f.name))
                        o('for (int32_t i_ = 0; i_ < n_; i_++) {')
                        o.ind += 1
                        if f.struct is not None:
                            o('fill_%s(&m->%s[i_], a, t_ + (uint32_t)i_);' %
                              (f.struct.cname, f.name))
                        else:
                            fill_prim(o, f, 'm->%s[i_]' % f.name,
                                      't_ + (uint32_t)i_', False)
                        o.end()
                        o.end()
                    elif f.struct is not None:
                        o('fill_%s(&m->%s, a, %s);' %
                          (f.struct.cname, f.name, seed))
                        if nullable_struct(f):
                            o('m->%s_null = (%s) %% 5u == 2u;' %
                              (f.name, seed))
                    else:
                        fill_prim(o, f, 'm->' + f.name, seed,
                                  not f.nullable.empty())
                o.end()
                o()
    o('static const gr_proto_fill_t fills[] = {')
    for sc in apis:
        o('    { %d, NULL, (gr_proto_fill_fn)fill_%s, '
          '(gr_proto_fill_fn)fill_%s },' %
          (sc.key, sc.sections['request'].cname,
           sc.sections['response'].cname))
    for sc in datas:
        o('    { -1, "%s", (gr_proto_fill_fn)fill_%s, NULL },' %
          (sc.name, sc.sections['fields'].cname))
    o('    { -2, NULL, NULL, NULL },')
    o('};')
    o()
    o('const gr_proto_fill_t *')
    o('gr_proto_fills(void)')
    o('{')
    o('    return fills;')
    o('}')
    return o.text()


def fill_prim(o, f, dst, seed, nullable):
    t = f.type
    if t in ('string', 'bytes', 'records'):
        o('{')
        o.ind += 1
        o('uint32_t v_ = %s;' % seed)
        if nullable:
            o('if (v_ % 5u == 2u) {')
            o('    %s.len = -1;' % dst)
            o('    %s.ptr = NULL;' % dst)
            o('} else {')
        else:
            o('{')
        o.ind += 1
        if t == 'string':
            o('char *p_ = gr_arena_printf(a, "%%s-%%u", "%s", v_ %% 1000u);'
              % f.name)
            o('%s.ptr = p_;' % dst)
            o('%s.len = (int32_t)strlen(p_);' % dst)
        elif t == 'bytes':
            o('uint8_t *p_ = gr_arena_alloc(a, 8);')
            o('for (int i_ = 0; i_ < 8; i_++)')
            o('    p_[i_] = (uint8_t)(v_ * 7u + (uint32_t)i_);')
            o('%s.ptr = p_;' % dst)
            o('%s.len = (int32_t)(v_ %% 8u);' % dst)
        else:
            o('uint8_t *p_ = gr_arena_alloc(a, 16);')
            o('for (int i_ = 0; i_ < 16; i_++)')
            o('    p_[i_] = (uint8_t)(v_ * 5u + (uint32_t)i_);')
            o('%s.ptr = p_;' % dst)
            o('%s.len = 16;' % dst)
            o('%s.file = NULL;' % dst)
        o.end()
        o.end()
        return
    if t == 'uuid':
        o('for (int i_ = 0; i_ < 16; i_++)')
        o('    %s.b[i_] = (uint8_t)((%s) * 13u + (uint32_t)i_);' % (dst, seed))
        return
    if t == 'bool':
        o('%s = ((%s) & 1u) != 0;' % (dst, seed))
        return
    if t == 'float64':
        o('%s = (double)((%s) %% 1000u) / 8.0;' % (dst, seed))
        return
    ct = PRIMS[t][0]
    o('%s = (%s)(%s);' % (dst, ct, seed))


def gen_tables(schemas):
    apis = sorted([s for s in schemas if s.kind == 'api'], key=lambda s: s.key)
    datas = sorted([s for s in schemas if s.kind == 'data'],
                   key=lambda s: s.name)
    keys = [s.key for s in apis]
    if len(set(keys)) != len(keys):
        raise SchemaError('two schemas share an api key')
    hdr = Out()
    hdr('/* Generated by protocol/gen from the schemas in protocol/. Do not edit. */')
    hdr('#ifndef GR_PROTO_GEN_API_KEYS_H')
    hdr('#define GR_PROTO_GEN_API_KEYS_H')
    hdr()
    w = max(len(s.name) for s in apis) + 8
    for s in apis:
        hdr('#define %-*s %d' % (w, 'GR_API_' + s.name.upper(), s.key))
    hdr('#define %-*s %d' % (w, 'GR_API__MAX', max(keys) + 1))
    hdr()
    hdr('#endif')

    th = Out()
    th('/* Generated by protocol/gen from the schemas in protocol/. Do not edit. */')
    th('#ifndef GR_PROTO_GEN_PROTO_TABLE_H')
    th('#define GR_PROTO_GEN_PROTO_TABLE_H')
    th()
    th('#include "proto/gen/api_keys.h"')
    for s in apis + datas:
        th('#include "proto/gen/%s.h"' % s.name)
    th()
    th('#endif')

    c = Out()
    c('/* Generated by protocol/gen from the schemas in protocol/. Do not edit. */')
    c('#include "proto/proto.h"')
    c('#include "proto/gen/proto_table.h"')
    c()
    c('#include <stddef.h>')
    c()

    def ops(stem):
        return ('{ sizeof(gr_%s_t), (gr_proto_init_fn)gr_%s_init, '
                '(gr_proto_decode_fn)gr_%s_decode, '
                '(gr_proto_size_fn)gr_%s_size, '
                '(gr_proto_encode_fn)gr_%s_encode, '
                '(gr_proto_print_fn)gr_%s_print }'
                % (stem, stem, stem, stem, stem, stem))

    c('static const gr_proto_api_t apis[] = {')
    c.ind += 1
    for s in apis:
        flex = s.flexible.lo if not s.flexible.empty() else -1
        hi = s.valid.hi - (1 if s.unstable_latest else 0)
        c('{ %d, "%s", %d, %d, %d, %d,' %
          (s.key, camel(s.name), s.valid.lo, hi, s.valid.hi, flex))
        c('  %s,' % ops(s.name + '_request'))
        c('  %s,' % ops(s.name + '_response'))
        thr = [f for f in s.sections['response'].fields
               if f.name == 'throttle_time_ms' and f.type == 'int32' and
               not f.array and f.tag is None]
        if thr:
            c('  offsetof(gr_%s_response_t, throttle_time_ms), %d },' %
              (s.name, thr[0].versions.lo))
        else:
            c('  -1, -1 },')
    c.ind -= 1
    c('};')
    c()
    c('static const gr_proto_data_t datas[] = {')
    c.ind += 1
    for s in datas:
        flex = s.flexible.lo if not s.flexible.empty() else -1
        c('{ "%s", %d, %d, %d, %s },' % (s.name, s.valid.lo, s.valid.hi, flex,
                                        ops(s.name)))
    c.ind -= 1
    c('};')
    c()
    c('static const gr_proto_api_t *by_key[%d] = {' % (max(keys) + 1))
    for i, s in enumerate(apis):
        c('    [%d] = &apis[%d],' % (s.key, i))
    c('};')
    c()
    c('const gr_proto_api_t *')
    c('gr_proto_api(int key)')
    c('{')
    c('    if (key < 0 || key >= (int)(sizeof by_key / sizeof by_key[0]))')
    c('        return NULL;')
    c('    return by_key[key];')
    c('}')
    c()
    c('const gr_proto_api_t *')
    c('gr_proto_api_at(int i)')
    c('{')
    c('    if (i < 0 || i >= (int)(sizeof apis / sizeof apis[0]))')
    c('        return NULL;')
    c('    return &apis[i];')
    c('}')
    c()
    c('const gr_proto_data_t *')
    c('gr_proto_data_at(int i)')
    c('{')
    c('    if (i < 0 || i >= (int)(sizeof datas / sizeof datas[0]))')
    c('        return NULL;')
    c('    return &datas[i];')
    c('}')
    return hdr.text(), th.text(), c.text()


def camel(name):
    return ''.join(p.capitalize() for p in name.split('_'))


def write_if_changed(path, text):
    try:
        with open(path) as f:
            if f.read() == text:
                return
    except OSError:
        pass
    tmp = path + '.tmp'
    with open(tmp, 'w') as f:
        f.write(text)
    os.replace(tmp, path)


TABLE_FILES = ('api_keys.h', 'proto_table.h', 'proto_table.c')


def schema_names(sdir):
    """The names SCHEMA_DIR/SCHEMAS lists, checked against the directory:
    a schema file not listed, or a name without its file, is an error."""
    lst = os.path.join(sdir, 'SCHEMAS')
    names = []
    with open(lst) as f:
        for n, line in enumerate(f, 1):
            line = line.split('#', 1)[0].strip()
            if not line:
                continue
            if not re.fullmatch(r'[a-z][a-z0-9_]*', line) or line in names:
                raise SchemaError('%s:%d: bad or repeated name "%s"' %
                                  (lst, n, line))
            names.append(line)
    files = {p[:-len('.schema')] for p in os.listdir(sdir)
             if p.endswith('.schema')}
    for n in sorted(files - set(names)):
        raise SchemaError('%s: %s.schema is not listed' % (lst, n))
    for n in names:
        if n not in files:
            raise SchemaError('%s: %s has no %s.schema' % (lst, n, n))
    return sorted(names)


def make_lists(names):
    """The make fragment of the file lists (gen.py --mk)."""
    def var(name, items):
        return '%s = \\\n%s\n' % (name, ' \\\n'.join('\t' + i for i in items))
    gen = 'src/proto/gen/'
    return ('# Generated by protocol/gen/gen.py --mk from protocol/SCHEMAS.'
            ' Do not edit.\n' +
            var('PROTO_SCHEMAS', ['protocol/%s.schema' % n for n in names]) +
            var('PROTO_GEN_C', sorted([gen + n + '.c' for n in names] +
                                      [gen + 'proto_table.c'])) +
            var('PROTO_GEN_H', sorted([gen + n + '.h' for n in names] +
                                      [gen + t for t in TABLE_FILES
                                       if t.endswith('.h')])))


def main(argv):
    if len(argv) == 3 and argv[1] == '--mk':
        try:
            sys.stdout.write(make_lists(schema_names(argv[2])))
        except SchemaError as e:
            sys.stderr.write('gen.py: %s\n' % e)
            return 1
        return 0
    if len(argv) != 3:
        sys.stderr.write('usage: gen.py SCHEMA_DIR OUT_DIR | --mk SCHEMA_DIR\n')
        return 2
    sdir, odir = argv[1], argv[2]
    try:
        paths = [os.path.join(sdir, n + '.schema') for n in schema_names(sdir)]
        schemas = [parse_schema(p) for p in paths]
        tables = gen_tables(schemas)
    except SchemaError as e:
        sys.stderr.write('gen.py: %s\n' % e)
        return 1
    os.makedirs(odir, exist_ok=True)
    outputs = {}
    for sc in schemas:
        outputs[sc.name + '.h'] = gen_header(sc)
        outputs[sc.name + '.c'] = CGen(sc).run()
    outputs['api_keys.h'], outputs['proto_table.h'], \
        outputs['proto_table.c'] = tables
    outputs['proto_fill.c'] = gen_fill(schemas)
    for name, text in sorted(outputs.items()):
        write_if_changed(os.path.join(odir, name), text)
    for name in os.listdir(odir):
        if name.endswith(('.c', '.h')) and name not in outputs:
            os.remove(os.path.join(odir, name))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
