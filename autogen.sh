#!/bin/sh
# Regenerates the build system (configure, Makefile.in) from configure.ac and
# Makefile.am.
set -e
cd "$(dirname "$0")"
mkdir -p m4 build-aux
# the generated codecs' file lists, which Makefile.am includes (see there)
python3 protocol/gen/gen.py --mk protocol >protocol/schemas.mk.tmp
mv protocol/schemas.mk.tmp protocol/schemas.mk
autoreconf --install --force
