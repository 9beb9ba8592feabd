# An orca worker image: orca built from this checkout, with git, ripgrep and bubblewrap. A worker
# needs nothing of the user's machine: it takes jobs from Redis and the repository from the run's
# shared git remote (orca run --share URL). `docker compose up` builds it (compose.yaml).
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# The prepare script builds, which needs the sources: install first, build after they are copied.
RUN npm ci --ignore-scripts
COPY . .
RUN npm run build && npm prune --omit=dev

FROM node:20-bookworm-slim
RUN apt-get update \
  && apt-get install -y --no-install-recommends git ripgrep bubblewrap jq ca-certificates openssh-client \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY --from=build /app/package.json /app/package-lock.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
ENV ORCA_HOME=/orca
ENTRYPOINT ["node", "dist/coordinator/cli.js"]
CMD ["worker", "--concurrency", "4"]
