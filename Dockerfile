# One image for both processes of the service. Node 24 runs the TypeScript sources directly,
# so there is no build step.
#   API (default):  sh scripts/jemalloc.sh node --expose-gc --max-semi-space-size=4 --heap-growing-percent=20 src/api/server.ts
#   Worker:         node src/worker.ts
#   Admin commands: node src/cli/admin.ts <command> ...
# Both processes need DATABASE_URL and TEMPORAL_ADDRESS; see .env.example for every variable.
FROM node:24-slim

ENV NODE_ENV=production
# Compiled code and type-stripped sources are kept between starts of a container (less memory, faster start).
ENV NODE_COMPILE_CACHE=/tmp/node-compile-cache
# The C allocator gives freed memory back: two arenas instead of one per thread, blocks of 128 KB and
# more mapped apart (and unmapped when freed) rather than taken from the heap, and the heap's free top
# returned past 128 KB. Without it the API kept about 50 MB more after a large request
# (docs/performance.md). As `npm run api` and `npm start`.
ENV GLIBC_TUNABLES=glibc.malloc.arena_max=2:glibc.malloc.mmap_threshold=131072:glibc.malloc.trim_threshold=131072
WORKDIR /app

# Chromium prints change-request PDFs in the worker (CHROMIUM_PATH defaults to /usr/bin/chromium); git runs Git Sync;
# the API runs with jemalloc as its C allocator (scripts/jemalloc.sh).
RUN apt-get update \
  && apt-get install -y --no-install-recommends chromium fonts-dejavu-core git libjemalloc2 \
  && rm -rf /var/lib/apt/lists/*

COPY package.json package-lock.json ./
# Installs exactly what package-lock.json pins (the lockfile lists every platform's optional binaries).
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

COPY src ./src
COPY scripts/jemalloc.sh ./scripts/jemalloc.sh

# The sources stay owned by root: the unprivileged user can run them but not change them.
USER node

EXPOSE 8080

# Liveness of the API process (the worker serves no HTTP; docker-compose.yml disables this check there).
HEALTHCHECK --interval=15s --timeout=5s --start-period=90s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/healthz', { signal: AbortSignal.timeout(4000) }).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]

# A young generation of 4 MB semi-spaces (Node's default here is 64 MB) and an old generation that
# grows by a fifth of its live size between full collections (V8 lets it grow up to four times, and
# keeps the pages it freed): with the allocator settings above, every row of the bench stays under
# 250 MB resident, for about a tenth of the throughput of requests answered from memory
# (docs/performance.md). `--expose-gc` lets the process give pooled pages back itself once it is
# idle after growing (src/api/memory-reducer.ts). As `npm run api`.
CMD ["sh", "scripts/jemalloc.sh", "node", "--expose-gc", "--max-semi-space-size=4", "--heap-growing-percent=20", "src/api/server.ts"]
