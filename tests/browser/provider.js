// A real OpenID provider for the browser tests: the certified
// `oidc-provider` package, with its development login and consent pages.
// Settings come from the environment:
//   PROVIDER_PORT   the port on 127.0.0.1 it listens on
//   CLIENTS         JSON: [{client_id, client_secret, redirect_uris}]
//   ACCOUNTS        JSON: {login: {claims...}}, the people who may sign in
// Any password is accepted for a known login. It prints "ready" once it
// listens.
import Provider from 'oidc-provider';

const port = Number(process.env.PROVIDER_PORT);
const issuer = `http://127.0.0.1:${port}`;
const accounts = JSON.parse(process.env.ACCOUNTS || '{}');
const clients = JSON.parse(process.env.CLIENTS || '[]').map((c) => ({
  grant_types: ['authorization_code'],
  response_types: ['code'],
  token_endpoint_auth_method: 'client_secret_basic',
  ...c,
}));

const provider = new Provider(issuer, {
  clients,
  claims: {
    openid: ['sub'],
    email: ['email', 'email_verified'],
    profile: ['name', 'employee_id'],
  },
  pkce: { required: () => true },
  cookies: { keys: ['kenning-browser-tests-only'] },
  features: { devInteractions: { enabled: true } },
  async findAccount(ctx, id) {
    const account = accounts[id];
    if (!account) return undefined;
    return { accountId: id, async claims() { return { sub: id, ...account }; } };
  },
});

provider.listen(port, '127.0.0.1', () => {
  console.log('ready');
});
