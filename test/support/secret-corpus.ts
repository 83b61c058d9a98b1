// A corpus of realistic planted secrets, each in the context a person or a command
// would put it (a pasted .env, a curl command, a JSON config, a folded shell command). The values
// are made here at test time from a seeded generator, in the real shapes (prefixes, lengths,
// alphabets), so no real-looking key sits in the repository to trip a scanner; they open nothing.

/** Where a secret reaches the document: what the user typed, a command a tool ran, or the agent's last answer. */
export type SecretPlace = 'request' | 'command' | 'delivery';

export interface PlantedSecret {
  /** What kind of secret, for the report: `stripe-live`, `mysql -p`, … */
  readonly kind: string;
  readonly place: SecretPlace;
  /** The text that carries it, as it would be pasted or run (may span lines). */
  readonly text: string;
  /** The parts that must not survive (a private key's body lines each count). */
  readonly secrets: readonly string[];
}

export const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
export const LOWER = 'abcdefghijklmnopqrstuvwxyz';
export const DIGITS = '0123456789';
export const ALNUM = UPPER + LOWER + DIGITS;
export const HEX = '0123456789abcdef';
export const BASE64 = `${ALNUM}+/`;
export const URLSAFE = `${ALNUM}_-`;

/** mulberry32: the same seed gives the same corpus, run after run. */
export function generator(seed: number): (alphabet: string, length: number) => string {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return (alphabet, length) => Array.from({ length }, () => alphabet[Math.floor(next() * alphabet.length)]).join('');
}

export function pem(random: (alphabet: string, length: number) => string, label: string, lines = 6): { text: string; body: string[] } {
  const body = Array.from({ length: lines }, (_, index) => (index === 0 ? `MII${random(BASE64, 61)}` : random(BASE64, 64)));
  return { text: [`-----BEGIN ${label}-----`, ...body, `-----END ${label}-----`].join('\n'), body };
}

export function base64url(text: string): string {
  return Buffer.from(text).toString('base64url');
}

/** The corpus: at least 50 secrets, each of a shape seen in real leaks. */
export function secretCorpus(seed = 22): PlantedSecret[] {
  const random = generator(seed);
  const out: PlantedSecret[] = [];
  const add = (kind: string, place: SecretPlace, make: (value: string) => string, value: string) =>
    out.push({ kind, place, text: make(value), secrets: [value] });

  // Cloud providers.
  add('aws-access-key-id', 'request', (v) => `export AWS_ACCESS_KEY_ID=${v}`, `AKIA${random(UPPER + DIGITS, 16)}`);
  add('aws-secret-access-key', 'request', (v) => `aws_secret_access_key = ${v}`, random(BASE64, 40));
  add('aws-session-token', 'command', (v) => `AWS_SESSION_TOKEN=${v} aws s3 ls`, `IQoJb3JpZ2luX2Vj${random(BASE64, 120)}`);
  add('google-api-key', 'request', (v) => `the maps key is ${v}`, `AIza${random(URLSAFE, 35)}`);
  add(
    'azure-storage',
    'request',
    (v) => `DefaultEndpointsProtocol=https;AccountName=prodstore;AccountKey=${v};EndpointSuffix=core.windows.net`,
    `${random(BASE64, 86)}==`,
  );
  add('digitalocean', 'command', (v) => `doctl auth init --access-token ${v}`, `dop_v1_${random(HEX, 64)}`);
  // Code hosts and registries.
  add('github-pat', 'request', (v) => `use ${v} for the CI`, `ghp_${random(ALNUM, 36)}`);
  add(
    'github-fine-grained',
    'command',
    (v) => `gh auth login --with-token <<< ${v}`,
    `github_pat_${random(ALNUM, 22)}_${random(ALNUM, 59)}`,
  );
  add('github-oauth', 'delivery', (v) => `The OAuth token in the cache was ${v}.`, `gho_${random(ALNUM, 36)}`);
  add('gitlab', 'command', (v) => `git clone https://oauth2:${v}@gitlab.com/team/app.git`, `glpat-${random(URLSAFE, 20)}`);
  add('npm', 'request', (v) => `//registry.npmjs.org/:_authToken=${v}`, `npm_${random(ALNUM, 36)}`);
  add('pypi', 'command', (v) => `twine upload -u __token__ -p ${v} dist/*`, `pypi-AgEIcHlwaS5vcmc${random(URLSAFE, 60)}`);
  add('huggingface', 'request', (v) => `HF token: ${v}`, `hf_${random(ALNUM, 34)}`);
  add('docker-login', 'command', (v) => `docker login -u deploy -p ${v} registry.example.com`, random(ALNUM, 24));
  // Payment, mail, chat.
  add('stripe-live', 'request', (v) => `const stripe = new Stripe('${v}');`, `sk_live_${random(ALNUM, 24)}`);
  add('stripe-restricted', 'delivery', (v) => `Set STRIPE_KEY to ${v} in the dashboard.`, `rk_live_${random(ALNUM, 24)}`);
  add('stripe-test', 'command', (v) => `curl https://api.stripe.com/v1/charges -u ${v}:`, `sk_test_${random(ALNUM, 24)}`);
  add('stripe-webhook', 'request', (v) => `webhook signing secret ${v}`, `whsec_${random(ALNUM, 32)}`);
  add('sendgrid', 'request', (v) => `sendgrid: ${v}`, `SG.${random(URLSAFE, 22)}.${random(URLSAFE, 43)}`);
  add(
    'mailgun',
    'command',
    (v) => `curl -s --user 'api:${v}' https://api.mailgun.net/v3/mg.example.com/messages`,
    `key-${random(HEX, 32)}`,
  );
  add('mailchimp', 'request', (v) => `mailchimp key ${v}`, `${random(HEX, 32)}-us${random(DIGITS, 2)}`);
  add('twilio', 'request', (v) => `twilio api key ${v}`, `SK${random(HEX, 32)}`);
  add('slack-bot', 'request', (v) => `the bot's is ${v}`, `xoxb-${random(DIGITS, 12)}-${random(DIGITS, 13)}-${random(ALNUM, 24)}`);
  add(
    'slack-user',
    'delivery',
    (v) => `I used the user token ${v} to post.`,
    `xoxp-${random(DIGITS, 12)}-${random(DIGITS, 12)}-${random(DIGITS, 13)}-${random(HEX, 32)}`,
  );
  add(
    'slack-webhook',
    'command',
    (v) => `curl -X POST -d '{"text":"hi"}' ${v}`,
    `https://hooks.slack.com/services/T${random(UPPER + DIGITS, 8)}/B${random(UPPER + DIGITS, 10)}/${random(ALNUM, 24)}`,
  );
  add('discord-webhook', 'request', (v) => `post to ${v}`, `https://discord.com/api/webhooks/${random(DIGITS, 18)}/${random(URLSAFE, 68)}`);
  add('telegram-bot', 'request', (v) => `bot token ${v}`, `${random(DIGITS, 10)}:AA${random(URLSAFE, 33)}`);
  // Model providers and SaaS.
  add('openai', 'request', (v) => `OPENAI_API_KEY=${v}`, `sk-proj-${random(URLSAFE, 48)}T3BlbkFJ${random(URLSAFE, 48)}`);
  add(
    'anthropic',
    'command',
    (v) => `curl https://api.anthropic.com/v1/messages -H "x-api-key: ${v}"`,
    `sk-ant-api03-${random(URLSAFE, 93)}AA`,
  );
  add('linear', 'request', (v) => `linear: ${v}`, `lin_api_${random(ALNUM, 40)}`);
  add('shopify', 'request', (v) => `shopify admin token ${v}`, `shpat_${random(HEX, 32)}`);
  add('vault', 'command', (v) => `VAULT_TOKEN=${v} vault kv get secret/app`, `hvs.${random(URLSAFE, 24)}`);
  add('doppler', 'request', (v) => `doppler ${v}`, `dp.pt.${random(ALNUM, 43)}`);
  add('atlassian', 'request', (v) => `jira api token ${v}`, `ATATT3xFfGF0${random(URLSAFE, 180)}`);
  add('datadog', 'request', (v) => `DD_API_KEY=${v}`, random(HEX, 32));
  // Tokens in headers and URLs.
  add('bearer-header', 'command', (v) => `curl -H "Authorization: Bearer ${v}" https://api.example.com/v1/me`, random(URLSAFE, 40));
  add('bearer-lower', 'request', (v) => `authorization: bearer ${v}`, random(ALNUM, 32));
  add(
    'basic-header',
    'command',
    (v) => `curl -H 'Authorization: Basic ${v}' https://intranet.example.com`,
    base64url(`admin:${random(ALNUM, 14)}`).replace(/-/g, '+'),
  );
  add('api-key-header', 'command', (v) => `curl -H "X-Api-Key: ${v}" https://api.example.com`, random(ALNUM, 32));
  add(
    'jwt',
    'delivery',
    (v) => `The session cookie was ${v}`,
    `${base64url('{"alg":"HS256","typ":"JWT"}')}.${base64url(`{"sub":"${random(DIGITS, 8)}","name":"deploy","iat":1700000000}`)}.${random(URLSAFE, 43)}`,
  );
  add('url-credentials', 'request', (v) => `the mirror is https://deploy:${v}@mirror.example.com/simple`, random(ALNUM, 16));
  add('postgres-url', 'request', (v) => `DATABASE_URL=postgres://app:${v}@db.internal:5432/app`, random(ALNUM, 18));
  add('mongodb-url', 'delivery', (v) => `Connected with mongodb+srv://admin:${v}@cluster0.ab1cd.mongodb.net/prod`, random(ALNUM, 16));
  add('redis-url', 'command', (v) => `redis-cli -u redis://default:${v}@cache.internal:6379 ping`, random(ALNUM, 20));
  add('curl-user', 'command', (v) => `curl -u admin:${v} https://jenkins.internal/api/json`, random(ALNUM, 14));
  // Passwords in commands and configuration.
  add('mysql-p', 'command', (v) => `mysql -u root -p${v} -h 127.0.0.1 shop`, `${random(ALNUM, 10)}!`);
  add('mysqldump-password', 'command', (v) => `mysqldump --password=${v} shop > shop.sql`, random(ALNUM, 12));
  add('sshpass', 'command', (v) => `sshpass -p '${v}' ssh deploy@10.0.0.5`, random(ALNUM, 12));
  add('pgpassword', 'command', (v) => `PGPASSWORD=${v} psql -h db -U app`, random(ALNUM, 14));
  add('lower-db-password', 'request', (v) => `db_password=${v}`, `${random(LOWER, 6)}${random(DIGITS, 3)}`);
  add('spaced-api-key', 'request', (v) => `API_KEY="${v}"`, `correct horse battery ${random(LOWER, 6)}`);
  add('json-password', 'request', (v) => `{"user": "admin", "password": "${v}"}`, random(ALNUM, 14));
  add('yaml-password', 'request', (v) => `database:\n  user: app\n  password: ${v}`, `${random(ALNUM, 10)}7`);
  add('python-secret', 'delivery', (v) => `I set SECRET_KEY = '${v}' in settings.py.`, random(`${ALNUM}!@#%^*`, 50));
  add('client-secret', 'request', (v) => `client_secret: "${v}"`, random(URLSAFE, 34));
  add('cli-token-flag', 'command', (v) => `terraform login --token ${v}`, `${random(ALNUM, 14)}.atlasv1.${random(ALNUM, 60)}`);
  add('htpasswd', 'command', (v) => `htpasswd -b .htpasswd admin ${v}`, random(ALNUM, 12));
  // Private keys, whole or folded onto one line by a tool call.
  for (const label of ['RSA PRIVATE KEY', 'OPENSSH PRIVATE KEY', 'EC PRIVATE KEY', 'PRIVATE KEY', 'PGP PRIVATE KEY BLOCK']) {
    const key = pem(random, label);
    out.push({ kind: `private-key ${label}`, place: 'request', text: `here is the key:\n${key.text}`, secrets: key.body });
  }
  const folded = pem(random, 'RSA PRIVATE KEY');
  out.push({
    kind: 'private-key in a command',
    place: 'command',
    text: `cat > deploy.pem <<'EOF'\n${folded.text}\nEOF`,
    secrets: folded.body,
  });
  const escaped = pem(random, 'PRIVATE KEY', 4);
  out.push({
    kind: 'gcp service account JSON',
    place: 'request',
    text: `{"type": "service_account", "project_id": "shop-prod", "private_key_id": "${random(HEX, 40)}", "private_key": "${escaped.text.replace(/\n/g, '\\n')}\\n", "client_email": "deploy@shop-prod.iam.gserviceaccount.com"}`,
    secrets: escaped.body,
  });
  return out;
}
