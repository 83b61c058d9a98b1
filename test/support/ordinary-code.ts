// Ordinary code and configuration that names secrets, tokens and keys without holding one: what a
// coding session quotes all day. None of it may be redacted — a document that hides a dependency's
// name or a hash loses what the successor needs. Written beside the held-out corpus, before the
// rules were tuned. Hashes and ids are made by a seeded generator: they are random, as real ones are.
import { ALNUM, BASE64, generator, HEX, LOWER, DIGITS } from './secret-corpus.js';

export function ordinaryCode(seed = 34): { kind: string; text: string }[] {
  const random = generator(seed);
  return [
    {
      kind: 'npm dependency named password',
      text: '"dependencies": {\n  "@inquirer/password": "^4.0.23",\n  "jsonwebtoken": "^9.0.2",\n  "passport-jwt": "^4.0.1"\n}',
    },
    { kind: 'constant named token', text: 'export const IETFToken = "ietf-token";' },
    { kind: 'token type', text: 'const tokenType = "bearer";\nconst token_type = "refresh_token";' },
    { kind: 'password field selector', text: "const passwordInput = document.querySelector('#password');" },
    {
      kind: 'zod schema',
      text: 'const Login = z.object({ user: z.string(), password: z.string().min(8), token: z.string().optional() });',
    },
    { kind: 'typescript field types', text: 'interface Session {\n  token: string;\n  apiKey?: string | null;\n  secret: boolean;\n}' },
    { kind: 'awaited token', text: 'const token = await getAccessToken(client);\nconst apiKey = config.apiKey ?? process.env.API_KEY;' },
    {
      kind: 'package-lock integrity',
      text: `"node_modules/ms": {\n  "version": "2.1.3",\n  "resolved": "https://registry.npmjs.org/ms/-/ms-2.1.3.tgz",\n  "integrity": "sha512-${random(BASE64, 86)}=="\n}`,
    },
    { kind: 'git log', text: `commit ${random(HEX, 40)}\nAuthor: Dev <dev@example.com>\n\n    fix: token refresh` },
    { kind: 'sha256sum output', text: `${random(HEX, 64)}  ai-zen-0.1.0.tgz` },
    { kind: 'docker digest', text: `FROM node:20-alpine@sha256:${random(HEX, 64)}` },
    {
      kind: 'uuid id',
      text: `{"id": "${random(HEX, 8)}-${random(HEX, 4)}-4${random(HEX, 3)}-8${random(HEX, 3)}-${random(HEX, 12)}", "type": "session"}`,
    },
    {
      kind: 'certificate',
      text: `-----BEGIN CERTIFICATE-----\nMII${random(BASE64, 61)}\n${random(BASE64, 64)}\n-----END CERTIFICATE-----`,
    },
    { kind: 'public key', text: `-----BEGIN PUBLIC KEY-----\nMFkw${random(BASE64, 60)}\n-----END PUBLIC KEY-----` },
    { kind: 'ssh public key', text: `ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI${random(BASE64, 43)} dev@laptop` },
    { kind: 'ethereum address', text: `const usdc = "0x${random(HEX, 40)}";` },
    { kind: 'transaction hash', text: `tx: 0x${random(HEX, 64)} (confirmed in block 19000000)` },
    { kind: 'data uri', text: `background: url("data:image/png;base64,iVBORw0KGgo${random(BASE64, 120)}");` },
    {
      kind: 'env from variable',
      text: 'SECRET_KEY = os.environ["SECRET_KEY"]\nDB_PASSWORD=${DB_PASSWORD}\n"password": "${POSTGRES_PASSWORD}"',
    },
    { kind: 'getpass', text: 'password = getpass.getpass("Password: ")' },
    { kind: 'max tokens', text: 'MAX_TOKENS=4096\nmax_tokens: 1024\nTOKEN_EXPIRY_SECONDS=3600\nconst OUTPUT_TOKEN_MAX = 32_000;' },
    { kind: 'header name', text: "API_KEY_HEADER = 'X-API-Key'\nconst AUTH_HEADER = 'Authorization';" },
    { kind: 'auth config object', text: "auth: { type: 'oauth2', flow: 'pkce' },\npasswordless: true," },
    { kind: 'tokenizer', text: 'tokenizer = AutoTokenizer.from_pretrained("bert-base-uncased")' },
    {
      kind: 'password reset route',
      text: 'password_reset_url = "/accounts/password/reset/"\nurlpatterns = [path("password/change/", views.change)]',
    },
    { kind: 'react key', text: '{items.map((item) => <Row key={item.id} secret={item.secret} />)}' },
    { kind: 'html password input', text: '<input type="password" name="password" autocomplete="current-password" required>' },
    {
      kind: 'url with ordinary query',
      text: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ&t=42s\nhttps://github.com/search?q=token&type=code&page=2',
    },
    { kind: 'maps key from env', text: 'src={`https://maps.googleapis.com/maps/api/js?key=${process.env.NEXT_PUBLIC_MAPS_KEY}`}' },
    {
      kind: 'kubernetes secret reference',
      text: 'env:\n  - name: DB_PASSWORD\n    valueFrom:\n      secretKeyRef:\n        name: db\n        key: password\ntls:\n  - secretName: web-tls',
    },
    { kind: 'github actions secret', text: 'env:\n  NPM_TOKEN: ${{ secrets.NPM_TOKEN }}\n  password: ${{ secrets.REGISTRY_PASSWORD }}' },
    {
      kind: 'shell reading a password',
      text: 'read -rs -p "Password: " password\nif [ -z "$PASSWORD" ]; then echo "set PASSWORD" >&2; exit 1; fi',
    },
    { kind: 'css colours', text: `.button { color: #1e90ff; background: #${random(HEX, 6)}; }` },
    {
      kind: 'test expectation',
      text: "expect(screen.getByLabelText('Password')).toBeVisible();\nawait user.type(passwordField, 'hunter2');",
    },
    {
      kind: 'oauth endpoint',
      text: 'access_token_url = "https://github.com/login/oauth/access_token"\nauthorize_url = "https://github.com/login/oauth/authorize"',
    },
    { kind: 'aws region', text: 'AWS_REGION=us-east-1\nAWS_PROFILE=dev\nAWS_DEFAULT_OUTPUT=json' },
    { kind: 'feature flags', text: 'secret: false\ntoken_auth: enabled\nauth: required' },
    { kind: 'request id header', text: `X-Request-Id: ${random(HEX, 32)}\nETag: "${random(HEX, 40)}"` },
    { kind: 'long identifier', text: 'export function handleAuthenticationTokenRefreshFailureForBackgroundSessions() {}' },
    {
      kind: 'poetry dependencies',
      text: '[tool.poetry.dependencies]\npython = "^3.11"\nkeyring = "^24.0"\npython-jose = { extras = ["cryptography"], version = "^3.3" }',
    },
    {
      kind: 'npmrc without secret',
      text: 'registry=https://registry.npmjs.org/\n//npm.corp.example/:_authToken=${NPM_TOKEN}\nalways-auth=true',
    },
    { kind: 'docker config with helper', text: '{\n  "auths": { "ghcr.io": {} },\n  "credsStore": "desktop"\n}' },
    { kind: 'semver and hashes in lockfile', text: `checksum: ${random(HEX, 128)}\nlanguageName: node\nlinkType: hard` },
    { kind: 'base64 fixture', text: `const png = Buffer.from("${random(BASE64, 200)}", "base64");` },
    { kind: 'minified css class names', text: `<div class="css-${random(LOWER + DIGITS, 6)} e1${random(LOWER + DIGITS, 6)}">` },
    { kind: 'sql', text: 'SELECT id, password_hash FROM users WHERE email = $1;\nUPDATE tokens SET revoked = true WHERE user_id = $1;' },
    { kind: 'go struct types', text: 'type Credentials struct {\n\tUser     string `json:"user"`\n\tPassword string `json:"password"`\n}' },
    { kind: 'python typing', text: 'def login(username: str, password: str, token: Optional[str] = None) -> Session: ...' },
    {
      kind: 'identifiers with key',
      text: `const cacheKey = \`user:\${id}\`;\nconst keyId = "k${random(ALNUM, 10)}";\nsortKey = "createdAt"`,
    },
  ];
}
