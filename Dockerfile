# The gateway as one image; run several behind a load balancer with
# PostgreSQL and Redis (see docker-compose.yml and the README).
FROM node:20-bookworm-slim AS build
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
RUN npm prune --omit=dev --no-audit --no-fund

FROM node:20-bookworm-slim
ENV NODE_ENV=production PORT=4000 HOST=0.0.0.0
WORKDIR /app
COPY --from=build --chown=node:node /app /app
USER node
EXPOSE 4000
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s \
  CMD node -e "fetch('http://127.0.0.1:' + process.env.PORT + '/ready').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"
# SIGTERM reaches node directly (no shell): the gateway stops gracefully within 10 s.
STOPSIGNAL SIGTERM
CMD ["node", "--import", "tsx", "src/main.ts"]
