# The gateway as one image; run several behind a load balancer with
# PostgreSQL and Redis (see docker-compose.yml and the README).
FROM node:24-bookworm-slim AS build
WORKDIR /app
# Dependencies first, so source changes reuse this layer. `npm ci` generates
# the Prisma client (postinstall), which needs the schema and the script.
COPY package.json package-lock.json prisma.config.ts ./
COPY prisma ./prisma
COPY scripts ./scripts
RUN npm ci --no-audit --no-fund
COPY bin ./bin
COPY src ./src
COPY tsconfig.json schema.graphql ./
# The server runs compiled: dist/main.js, bundled from src/ (`npm run build`).
# src/ stays in the image: the bundle reads its pages and prisma/ its
# migrations from there, and the CLI (`npx gateway`) runs it through tsx.
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

FROM node:24-bookworm-slim
ENV NODE_ENV=production PORT=4000 HOST=0.0.0.0
# glibc's allocator, set for a small resident size (BENCHMARKS.md (f)): two
# arenas instead of eight per core, and freed memory above 128 KiB given back
# to the system instead of kept (the threshold also stops glibc from raising
# it after each large free). Measured with the command below: idle 156-176 ->
# 153-159 MiB, 5 s after a load 231-241 -> 188-242 MiB, the same CPU per request.
ENV MALLOC_ARENA_MAX=2 MALLOC_TRIM_THRESHOLD_=131072
WORKDIR /app
COPY --from=build --chown=node:node /app /app
USER node
EXPOSE 4000
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s \
  CMD node -e "fetch('http://127.0.0.1:' + process.env.PORT + '/ready').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"
# SIGTERM reaches node directly (no shell): the gateway stops gracefully within 10 s.
# The command and flags are package.json's `start` (see the README's Production
# deployment): --expose-gc lets an idle server give back what a burst of
# requests left behind (src/main.ts); --v8-pool-size=1 gives V8 one background
# thread instead of four, each of which kept memory of its own (idle 180 ->
# 161 MiB on average, the same throughput on 2 cores); --heap-growing-percent=100
# keeps V8 from collecting the whole heap every second under a moderate load
# after an idle spell (docs/operations.md, "Production deployment").
STOPSIGNAL SIGTERM
CMD ["node", "--expose-gc", "--v8-pool-size=1", "--heap-growing-percent=100", "dist/main.js"]
