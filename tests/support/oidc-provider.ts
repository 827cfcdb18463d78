import http from 'node:http';
import type { AddressInfo } from 'node:net';
// @ts-expect-error -- oidc-provider ships no type declarations; the test drives it through its documented API.
import Provider from 'oidc-provider';

/**
 * A real OpenID provider (oidc-provider) on a random localhost port, for the single sign-on tests.
 * The login screen is replaced by an automatic one: the next interaction signs in `account` (set
 * it with setAccount), and consent is granted, so tests drive the real authorization-code + PKCE
 * flow, real signed ID tokens, real code redemption rules (a code works once) and RP-initiated logout.
 */
export type TestAccount = { sub: string; email: string; emailVerified?: boolean; name?: string };

export type TestOidcProvider = {
  issuer: string;
  clientId: string;
  clientSecret: string;
  setAccount(account: TestAccount): void;
  close(): Promise<void>;
};

export async function startOidcProvider(options: {
  port?: number;
  redirectUris: string[];
  postLogoutRedirectUris?: string[];
  clientId?: string;
  clientSecret?: string;
}): Promise<TestOidcProvider> {
  const clientId = options.clientId ?? 'lending-backoffice';
  const clientSecret = options.clientSecret ?? 'test-client-secret-0123456789abcdef';
  let account: TestAccount = { sub: 'user-1', email: 'admin@demo.test', emailVerified: true, name: 'Alice Admin' };
  const accounts = new Map<string, TestAccount>();

  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const issuer = `http://localhost:${port}`;

  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: options.redirectUris,
        post_logout_redirect_uris: options.postLogoutRedirectUris ?? [],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    pkce: { required: () => true },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    features: { devInteractions: { enabled: false }, rpInitiatedLogout: { enabled: true } },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    cookies: { keys: ['oidc-test-cookie-key-0123456789'] },
    findAccount: async (_ctx: unknown, sub: string) => {
      const found = accounts.get(sub);
      if (!found) return undefined;
      return {
        accountId: sub,
        claims: async () => ({
          sub,
          email: found.email,
          email_verified: found.emailVerified ?? true,
          name: found.name ?? found.email,
        }),
      };
    },
  } as never);
  // Silence the dev-keys warning noise: the provider signs with generated keys, which is what a test wants.
  (provider as unknown as { on: (e: string, f: () => void) => void }).on('server_error', () => {});

  const callback = provider.callback();
  server.on('request', async (req, res) => {
    try {
      if (req.url?.startsWith('/interaction/')) {
        const details = await provider.interactionDetails(req, res);
        if (details.prompt.name === 'login') {
          accounts.set(account.sub, account);
          await provider.interactionFinished(
            req,
            res,
            { login: { accountId: account.sub } },
            { mergeWithLastSubmission: false },
          );
          return;
        }
        const grant = details.grantId
          ? await provider.Grant.find(details.grantId)
          : new provider.Grant({ accountId: details.session!.accountId, clientId: details.params.client_id as string });
        const missing = details.prompt.details as { missingOIDCScope?: string[]; missingOIDCClaims?: string[] };
        if (missing.missingOIDCScope) grant!.addOIDCScope(missing.missingOIDCScope.join(' '));
        if (missing.missingOIDCClaims) grant!.addOIDCClaims(missing.missingOIDCClaims);
        const grantId = await grant!.save();
        await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
        return;
      }
      callback(req, res);
    } catch (error) {
      res.statusCode = 500;
      res.end(String(error));
    }
  });

  return {
    issuer,
    clientId,
    clientSecret,
    setAccount(next) {
      account = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
