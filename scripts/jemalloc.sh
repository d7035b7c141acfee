#!/bin/sh
# Runs a command with jemalloc as its C allocator when the library is installed (Debian's
# libjemalloc2; the image installs it), otherwise as it is, with glibc's allocator. jemalloc gives
# freed pages back at once here (MALLOC_CONF, unless set: no decay of dirty or muzzy pages): the API's
# resident peaks under the bench's load were lower than with glibc's, at the same throughput
# (docs/performance.md). JEMALLOC_PATH names the library elsewhere; an empty one turns it off.
# Used by `npm run api` and the image's API command; not by the worker, whose Chromium has its own allocator.
if [ -z "${JEMALLOC_PATH+set}" ]; then
  for candidate in /usr/lib/*-linux-gnu/libjemalloc.so.2 /usr/lib/libjemalloc.so.2 /usr/local/lib/libjemalloc.so.2; do
    if [ -r "$candidate" ]; then JEMALLOC_PATH=$candidate; break; fi
  done
fi
if [ -n "$JEMALLOC_PATH" ] && [ -r "$JEMALLOC_PATH" ]; then
  LD_PRELOAD="$JEMALLOC_PATH${LD_PRELOAD:+:$LD_PRELOAD}"
  MALLOC_CONF="${MALLOC_CONF-dirty_decay_ms:0,muzzy_decay_ms:0}"
  export LD_PRELOAD MALLOC_CONF
fi
exec "$@"
