#!/bin/sh
# libgregor.so exports the API of include/gregor/gregor.h and nothing else:
# every dynamic symbol it defines starts with gregor_, and every function
# the header declares is among them.
echo "1..2"
b=${top_builddir:-.}
s=${top_srcdir:-.}
so="$b/libgregor.so"
defined=$(nm -D --defined-only "$so" | awk '{print $3}' | sed 's/@.*//' | sort -u)
other=$(printf '%s\n' "$defined" | grep -v '^gregor_' | grep -v '^GREGOR_0$' | grep -v '^$')
if [ -z "$other" ]; then
    echo "ok 1 - libgregor.so defines only gregor_* symbols"
else
    echo "not ok 1 - libgregor.so also exports: $(echo $other | head -c 400)"
fi
missing=
for f in $(sed -n 's/^GREGOR_API [^(]*[ *]\(gregor_[a-z_]*\)(.*/\1/p' \
               "$s/include/gregor/gregor.h"); do
    printf '%s\n' "$defined" | grep -qx "$f" || missing="$missing $f"
done
if [ -z "$missing" ]; then
    echo "ok 2 - every function of gregor.h is exported"
else
    echo "not ok 2 - not exported:$missing"
fi
