# syntax=docker/dockerfile:1
# One image for every service of the catalog: run `node services/<name>/dist/main.js` (the Helm
# chart does, with its Node flags and `--import @catalog/platform/telemetry-register`; decisions 0040, 0041). The production tree is made
# by scripts/image-tree.sh, the same script the image smoke test (test/deploy/image.test.ts) runs.

FROM node:24-bookworm-slim AS build
WORKDIR /src
COPY . .
RUN bash scripts/image-tree.sh /app

FROM node:24-bookworm-slim
# ffprobe: the asset service reads audio durations with it.
RUN apt-get update \
  && apt-get install -y --no-install-recommends ffmpeg \
  && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production
# A container is reached through its network namespace: listen on every interface of it (the
# services' own default is 127.0.0.1, decision 0117; the chart sets it too).
ENV HTTP_HOST=0.0.0.0
WORKDIR /app
COPY --from=build /app /app
# The `node` user of the base image (uid 1000), matching the chart's runAsUser.
USER 1000:1000
EXPOSE 8080
CMD ["node", "--single-threaded-gc", "--harmony-rab-gsab-transfer", "--import", "@catalog/platform/telemetry-register", "services/gateway/dist/main.js"]
