#!/bin/sh
# The README's libgregor example (tests/embed/readme_example.c, extracted
# from the README at build time) run as a TAP test: it exits 0 when the
# client saw its records through the two injected errors.
echo "1..1"
b=${top_builddir:-.}
if timeout 60 "$b/tests/embed/example"; then
    echo "ok 1 - the README's libgregor example"
else
    echo "not ok 1 - the README's libgregor example (exit $?)"
fi
