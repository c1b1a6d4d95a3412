"""What a sanitizer build of the broker holds beyond what the broker does.

The memory bounds of compat/attacks/ and compat/limits.py are stated for
the broker as built for users; `make check` runs them again on the ASan
build (CI's second pass), where AddressSanitizer keeps freed blocks in
its quarantine (quarantine_size_mb of ASAN_OPTIONS, 256 MiB by default on
64-bit) and adds redzones and shadow memory to every block it holds. A
memory bound there is the stated one doubled plus the quarantine: the
plain build's run is the one that holds the broker to its figure, the
sanitizer's run still fails on a broker that holds without bound."""

import os
import re


def asan(pid):
    """Whether process pid runs with AddressSanitizer (libasan mapped)."""
    try:
        with open("/proc/%d/maps" % pid) as f:
            return any("libasan" in line for line in f)
    except OSError:
        return False


def quarantine_mib():
    m = re.search(r"quarantine_size_mb=(\d+)", os.environ.get("ASAN_OPTIONS", ""))
    return int(m.group(1)) if m else 256


def rss_bound_mib(pid, stated_mib, asan_factor=2):
    """(bound, why) for a stated RSS growth bound of process pid.
    asan_factor: what ASan makes of the memory held, 2 unless the caller
    holds mostly blocks of a few dozen bytes (ASan's header and minimum
    redzone then cost more than the block) and says so with its figures."""
    if not asan(pid):
        return stated_mib, ""
    q = quarantine_mib()
    return (asan_factor * stated_mib + q,
            " (ASan build: %d x %d + %d MiB of quarantine)" % (asan_factor, stated_mib, q))
