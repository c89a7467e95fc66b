# syntax=docker/dockerfile:1
# One image for every process of a deployment: `db migrate`, `scheduler`, `worker`, and any other
# command (`docker run --rm robots-audit sites list`). docker-compose.yml wires them together.

# Build: all dependencies (TypeScript among them), then the sources compiled to dist/.
FROM node:24-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# Scripts off: `prepare` builds, and the sources are not here yet (copied after, so that this
# layer is reused while only the sources change).
RUN --mount=type=cache,target=/root/.npm npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY workers ./workers
RUN npm run build

# Runtime: production dependencies, the compiled code and the migrations; no compiler, no sources.
FROM node:24-slim AS runtime
ENV NODE_ENV=production
# The young generation Node 20 and 22 give V8 with more than 2 GB of memory (16 MB semi-spaces),
# which the memory figures of docs/benchmarks.md were measured with. Node 24 sizes it by the
# machine's memory, up to 64 MB semi-spaces: a worker then peaked at 344-347 MB RSS at 10,000 sites,
# against 242 MB with this flag, at the same rate. A start-up flag, so in the environment; the
# compose file or `docker run -e` may set another (docs/operations.md: Memory).
ENV NODE_OPTIONS=--max-semi-space-size=16
WORKDIR /app
COPY package.json package-lock.json ./
# Scripts off: `prepare` would build (no TypeScript here, and dist/ comes from the build stage);
# no dependency's install script runs anywhere (package.json's allowScripts denies both that have
# one: msgpackr-extract ships prebuilt binaries, and msgpackr falls back to JavaScript without them).
RUN --mount=type=cache,target=/root/.npm npm ci --omit=dev --ignore-scripts --no-audit --no-fund
COPY --from=build /app/dist ./dist
COPY migrations ./migrations
# The node images' unprivileged user; the app writes nothing to disk.
USER node
# Exec form: node is PID 1 and gets SIGTERM itself, so a stopping worker finishes its jobs.
ENTRYPOINT ["node", "dist/src/cli/entry.js"]
CMD ["worker"]
