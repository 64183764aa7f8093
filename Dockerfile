# The container of `mcp-bridge serve` (docs/install.md#install-container).
# Build: docker build -t mcp-bridge .
# Run:   docker run -p 8080:8080 --mount type=bind,src=$PWD/token,dst=/run/secrets/mcp_bridge_token,readonly \
#          mcp-bridge https://mcp.example.com/mcp
# test/package/dockerfile.test.ts runs the steps below as a script in a temporary directory.

# The build: the package from the repository's own lock, built into dist/bin, one bundle that
# needs no node_modules at run time.
FROM node:22-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build

# The image: Node.js, the bundle and the licence files; no npm install, no compiler.
FROM node:22-bookworm-slim
WORKDIR /app
COPY --from=build /src/dist/bin ./bin
COPY --from=build /src/LICENSE /src/NOTICE ./
ENV NODE_ENV=production
# The image's own user "node" (uid 1000, gid 1000): the token file must be readable by it alone.
USER node
EXPOSE 8080
# docs/serve.md#serve-health: GET /healthz with the token of the mounted file (else of
# MCP_BRIDGE_SERVE_TOKEN), healthy on 200 only: 503 is an upstream that is down, 401 a token that
# does not match. The token is read inside the check, never put on a command line.
HEALTHCHECK --interval=30s --timeout=5s --retries=3 \
  CMD ["node", "-e", "let t = process.env.MCP_BRIDGE_SERVE_TOKEN ?? ''; try { t = require('node:fs').readFileSync('/run/secrets/mcp_bridge_token', 'utf8').trim(); } catch {} require('node:http').get({ host: '127.0.0.1', port: 8080, path: '/healthz', headers: { authorization: 'Bearer ' + t }, timeout: 4000 }, (r) => process.exit(r.statusCode === 200 ? 0 : 1)).on('error', () => process.exit(1)).on('timeout', () => process.exit(1))"]
# Beyond loopback the bridge needs a token: the file of a secret or a mount, or
# MCP_BRIDGE_SERVE_TOKEN. The arguments of `docker run` follow: the upstream URL, or
# options and then "--" and a command that the image holds.
ENTRYPOINT ["node", "/app/bin/mcp-bridge.js", "serve", "--listen", "0.0.0.0:8080", "--auth-token-file", "/run/secrets/mcp_bridge_token"]
