# sluice service image (docs/deployment.md). One image for every role: the command picks it,
# e.g. `start --role api`. Configuration comes from the environment (README "Configuration").
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

FROM node:20-bookworm-slim
ENV NODE_ENV=production \
    DATA_DIR=/data \
    API_HOST=0.0.0.0 \
    LOG_FORMAT=json
WORKDIR /app
# At run time the service reads the build (dist/), its production dependencies, the built-in
# subgraph specs and templates (deploys generate code from them) and generated/ documents.
COPY --from=build /app/package.json /app/package-lock.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/specs ./specs
COPY --from=build /app/templates ./templates
COPY --from=build /app/generated ./generated
# DATA_DIR holds keys generated when none is configured, and the code of subgraphs deployed at run time.
RUN mkdir -p /data && chown node:node /data
VOLUME ["/data"]
USER node
EXPOSE 3700 3800
ENTRYPOINT ["node", "dist/runtime/cli/main.js"]
CMD ["start"]
