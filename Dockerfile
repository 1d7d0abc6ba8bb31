# syntax=docker/dockerfile:1
# One image for the API (default CMD), `bun src/migrate.ts` and `bun workers/configs.ts`; the
# `judge` target adds the sandbox and the toolchains for `bun workers/judge.ts` (see compose.yaml).
# Bun runs the TypeScript directly; there is no build step.
#
#   docker build --build-arg GIT_COMMIT=$(git rev-parse --short HEAD) \
#                --build-arg GIT_COMMIT_TIME=$(git log -1 --format=%cI) -t joj-backend .

FROM oven/bun:1.4.4 AS deps
WORKDIR /app
# Only the manifests, so this layer stays cached until the dependencies change.
COPY package.json bun.lock ./
RUN bun install --frozen-lockfile --production

FROM oven/bun:1.4.4 AS app
WORKDIR /app
ENV MODE=production \
    PORT=34765 \
    DATA_DIR=/data

COPY --from=deps /app/node_modules ./node_modules
COPY package.json bun.lock tsconfig.json ./
COPY migrations ./migrations
COPY workers ./workers
COPY src ./src

# The code stays root-owned and read-only to the server; only /data (the storage volume) is writable.
RUN mkdir -p /data/storage && chown -R bun:bun /data

# Last, so a new commit does not invalidate the layers above. src/version.ts reports them.
ARG GIT_COMMIT=""
ARG GIT_COMMIT_TIME=""
ENV GIT_COMMIT=${GIT_COMMIT} \
    GIT_COMMIT_TIME=${GIT_COMMIT_TIME}

USER bun
EXPOSE 34765

# The image has no curl; Bun's fetch does the probe. Liveness only: readiness (/readyz) is the orchestrator's.
HEALTHCHECK --interval=15s --timeout=5s --start-period=20s --retries=3 \
  CMD ["bun", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||34765)+'/healthz').then(r=>process.exit(r.ok?0:1)).catch(()=>process.exit(1))"]

CMD ["bun", "src/main.ts"]

# The judge: bubblewrap, libseccomp (the runner's filter), setpriv and the toolchains the problems' config.json may name (add yours
# here). It starts as root only to give each program an unprivileged uid of its own; no program runs
# as root. Build with `--target judge`.
FROM app AS judge
USER root
RUN apt-get update \
 && apt-get install -y --no-install-recommends bubblewrap libseccomp-dev util-linux procps gcc g++ libc6-dev python3 \
 && rm -rf /var/lib/apt/lists/*
ENV JUDGE_WORK_DIR=/tmp/joj-judge JUDGE_CACHE_DIR=/data/judge-cache
HEALTHCHECK NONE
CMD ["bun", "--no-env-file", "workers/judge.ts"]

# The default target: the API and the other roles, as the unprivileged user.
FROM app
