// A real, certified OpenID provider (npm oidc-provider) for mcphost's OAuth
// tests, run by internal/testenv.StartOIDCProvider with the project-local
// Node 22 (testdata/npm/node_modules/.bin/node).
//
// It listens on a random port of 127.0.0.1 and prints exactly one line to
// stdout, {"issuer":"http://127.0.0.1:PORT"}; everything else (oidc-provider's
// notices, errors) goes to stderr. It exits when stdin closes, so it dies with
// the test that started it, and on SIGTERM or SIGINT.
//
// Environment:
//   OIDC_RESOURCE (required)      the protected MCP server's URL: the only
//                                 RFC 8707 resource; its access tokens are
//                                 opaque, with that audience and scope mcp:tools
//   OIDC_ACCESS_TOKEN_TTL         access token lifetime in seconds (600)
//   OIDC_INTROSPECTION_CLIENT_ID, OIDC_INTROSPECTION_CLIENT_SECRET
//                                 a confidential client (client_secret_basic)
//                                 the resource server uses for RFC 7662
//                                 introspection; both or neither
import crypto from 'node:crypto';
import http from 'node:http';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { format } from 'node:util';

// stdout carries only the JSON line the harness waits for, but oidc-provider
// prints its NOTICE lines with console.info: send all console output to stderr.
const toStderr = (...args) => process.stderr.write(`${format(...args)}\n`);
console.log = toStderr;
console.info = toStderr;
console.debug = toStderr;
console.warn = toStderr;

function fail(message) {
  process.stderr.write(`provider.mjs: ${message}\n`);
  process.exit(2);
}

const RESOURCE = process.env.OIDC_RESOURCE;
if (!RESOURCE) fail('OIDC_RESOURCE is required');
{
  const u = URL.parse(RESOURCE);
  if (!u || !['http:', 'https:'].includes(u.protocol) || u.hash) {
    fail(`OIDC_RESOURCE ${JSON.stringify(RESOURCE)} must be an absolute http(s) URL without a fragment`);
  }
}
const SCOPE = 'mcp:tools';
const TTL = Number(process.env.OIDC_ACCESS_TOKEN_TTL || 600);
if (!Number.isSafeInteger(TTL) || TTL <= 0) fail('OIDC_ACCESS_TOKEN_TTL must be a positive integer of seconds');
const INTROSPECTION_ID = process.env.OIDC_INTROSPECTION_CLIENT_ID || '';
const INTROSPECTION_SECRET = process.env.OIDC_INTROSPECTION_CLIENT_SECRET || '';
if (!INTROSPECTION_ID !== !INTROSPECTION_SECRET) {
  fail('OIDC_INTROSPECTION_CLIENT_ID and OIDC_INTROSPECTION_CLIENT_SECRET go together');
}

// The package lives beside this script's folder, not under it: resolve it
// from testdata/npm the way Node would from there (its package.json "main").
const require = createRequire(new URL('../npm/package.json', import.meta.url));
const entry = require.resolve('oidc-provider');
const { default: Provider, errors } = await import(pathToFileURL(entry).href);

// The issuer must name the port, which is known only once listening.
const server = http.createServer();
await new Promise((resolve, reject) => {
  server.once('error', reject);
  server.listen(0, '127.0.0.1', resolve);
});
const issuer = `http://127.0.0.1:${server.address().port}`;

// A fresh signing key per run, so no development key is used or warned about.
const { privateKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
const signingKey = { ...privateKey.export({ format: 'jwk' }), kid: 'test-rs256', alg: 'RS256', use: 'sig' };

const clients = [];
if (INTROSPECTION_ID) {
  // A resource server's client: it only authenticates to introspect (and
  // revoke), so it has no grants, responses or redirects.
  clients.push({
    client_id: INTROSPECTION_ID,
    client_secret: INTROSPECTION_SECRET,
    grant_types: [],
    response_types: [],
    redirect_uris: [],
    token_endpoint_auth_method: 'client_secret_basic',
  });
}

const resourceServer = {
  scope: SCOPE,
  audience: RESOURCE,
  accessTokenTTL: TTL,
  // Opaque, so the resource server must introspect, and a token cannot be
  // checked offline by anyone who is not the provider.
  accessTokenFormat: 'opaque',
};

const provider = new Provider(issuer, {
  clients,
  jwks: { keys: [signingKey] },
  cookies: { keys: [crypto.randomBytes(32).toString('base64url')] },
  // Any login name is an account whose only claim is its subject.
  findAccount: (_ctx, sub) => ({ accountId: sub, claims: () => ({ sub }) }),
  responseTypes: ['code'],
  // OpenID scopes only: mcp:tools is the resource server's (a static scope
  // would be granted as an OpenID one, not for the resource).
  scopes: ['openid', 'offline_access'],
  pkce: { required: () => true },
  // A refresh token whenever the client registered the refresh_token grant:
  // the default also wants offline_access, which oidc-provider drops from an
  // authorization request that has a prompt other than consent.
  issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
  // The harness's "browser" is a throwaway cookie jar: tokens must not die
  // with its session (the default binds them unless offline_access).
  expiresWithSession: async () => false,
  ttl: {
    AccessToken: (_ctx, token) => token.resourceServer?.accessTokenTTL ?? TTL,
    AuthorizationCode: 60,
    IdToken: 600,
    RefreshToken: 24 * 60 * 60,
    Interaction: 10 * 60,
    Session: 24 * 60 * 60,
    Grant: 24 * 60 * 60,
  },
  features: {
    devInteractions: { enabled: true },
    registration: { enabled: true, initialAccessToken: false },
    revocation: {
      enabled: true,
      allowedPolicy: async (_ctx, client, token) => token.clientId === client.clientId,
    },
    introspection: {
      enabled: true,
      // The resource server's client may introspect any token; other clients
      // only their own.
      allowedPolicy: async (_ctx, client, token) => (INTROSPECTION_ID !== '' && client.clientId === INTROSPECTION_ID)
        || token.clientId === client.clientId,
    },
    resourceIndicators: {
      enabled: true,
      // A request without resource is for the MCP server all the same; of
      // several, the MCP server is picked.
      defaultResource: async (_ctx, _client, oneOf) => {
        if (!oneOf) return RESOURCE;
        return oneOf.includes(RESOURCE) ? RESOURCE : oneOf;
      },
      // Without this, a token request without resource (a refresh by
      // golang.org/x/oauth2, say) for a grant that includes openid would get
      // a token for the userinfo endpoint instead of for the MCP server.
      useGrantedResource: async () => true,
      getResourceServerInfo: async (_ctx, indicator) => {
        if (indicator !== RESOURCE) {
          throw new errors.InvalidTarget(`unknown resource ${indicator}; this provider serves only ${RESOURCE}`);
        }
        return resourceServer;
      },
    },
  },
});

// RFC 8414 metadata: oidc-provider serves the same document at
// /.well-known/oauth-authorization-server and /.well-known/openid-configuration;
// this adds the resource's scope to scopes_supported, which lists only OpenID
// scopes otherwise.
provider.use(async (ctx, next) => {
  await next();
  if (ctx.method === 'GET' && ctx.status === 200 && ctx.body?.scopes_supported
    && ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration'].includes(ctx.path)) {
    ctx.body.scopes_supported = [...new Set([...ctx.body.scopes_supported, SCOPE])];
  }
});

const describe = (err) => {
  const name = err?.error || err?.name || 'Error';
  const text = err?.error_description || err?.message || String(err);
  return `${name}: ${text}${err?.error_detail ? ` (${err.error_detail})` : ''}`;
};
provider.on('server_error', (ctx, err) => {
  toStderr(`server_error ${ctx?.method} ${ctx?.path}: ${err?.stack || describe(err)}`);
});
for (const event of [
  'authorization.error', 'grant.error', 'registration_create.error', 'registration_read.error',
  'introspection.error', 'revocation.error', 'discovery.error', 'jwks.error', 'userinfo.error',
  'end_session.error', 'end_session_confirm.error', 'pushed_authorization_request.error',
]) {
  provider.on(event, (ctx, err) => toStderr(`${event} ${ctx?.method} ${ctx?.path}: ${describe(err)}`));
}
// A few successes, so that a failing test's log shows how far the flow got.
provider.on('registration_create.success', (_ctx, client) => {
  toStderr(`registered client ${client.clientId} (${client.applicationType}, ${client.tokenEndpointAuthMethod}, grant_types ${client.grantTypes.join(' ')}, redirect_uris ${client.redirectUris.join(' ')})`);
});
provider.on('grant.success', (ctx) => {
  const { AccessToken: at, RefreshToken: rt } = ctx.oidc.entities;
  toStderr(`token endpoint ${ctx.oidc.params.grant_type} for ${ctx.oidc.client?.clientId}: access token aud ${at?.aud} scope "${at?.scope ?? ''}"${rt ? ', refresh token' : ''}`);
});

server.on('request', provider.callback());

const exit = () => {
  server.closeAllConnections();
  server.close();
  process.exit(0);
};
process.on('SIGTERM', exit);
process.on('SIGINT', exit);
process.stdin.on('end', exit);
process.stdin.on('close', exit);
process.stdin.resume();

process.stdout.write(`${JSON.stringify({ issuer })}\n`);
