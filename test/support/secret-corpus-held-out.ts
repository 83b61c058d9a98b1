// A second corpus of realistic planted secrets, of kinds the first one (secret-corpus.ts) lacks:
// other private-key containers and separators, other vendors' prefixes, config files that hold a
// credential (.npmrc, docker's config.json, .netrc, .pgpass), webhook URLs, signed URLs, command
// lines of other tools, and secrets split across literals or lines. It was written before the
// rules were tuned and is kept apart from them: a rule is not written to fit one of its entries,
// so its recall says how the scanner does on secrets nobody tuned it to. Values are made at test
// time by the same seeded generator, so no real-looking key sits in the repository.
import {
  ALNUM,
  BASE64,
  base64url,
  DIGITS,
  generator,
  HEX,
  LOWER,
  type PlantedSecret,
  pem,
  type SecretPlace,
  UPPER,
  URLSAFE,
} from './secret-corpus.js';

const BECH32 = 'QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L';

function uuid(random: (alphabet: string, length: number) => string): string {
  return `${random(HEX, 8)}-${random(HEX, 4)}-4${random(HEX, 3)}-a${random(HEX, 3)}-${random(HEX, 12)}`;
}

/** The held-out corpus: about 90 secrets, none of a kind the first corpus has. */
export function heldOutSecretCorpus(seed = 33): PlantedSecret[] {
  const random = generator(seed);
  const out: PlantedSecret[] = [];
  const add = (kind: string, place: SecretPlace, make: (value: string) => string, value: string) =>
    out.push({ kind, place, text: make(value), secrets: [value] });
  const many = (kind: string, place: SecretPlace, text: string, secrets: string[]) => out.push({ kind, place, text, secrets });

  // Private keys in other containers and with other separators.
  {
    const publicLines = [random(BASE64, 64), random(BASE64, 20)];
    const privateLines = [random(BASE64, 64), random(BASE64, 24)];
    const mac = random(HEX, 64);
    many(
      'putty-ppk',
      'request',
      [
        'PuTTY-User-Key-File-3: ssh-rsa',
        'Encryption: none',
        'Comment: deploy@build',
        'Public-Lines: 2',
        ...publicLines,
        'Private-Lines: 2',
        ...privateLines,
        `Private-MAC: ${mac}`,
      ].join('\n'),
      [...privateLines, mac],
    );
  }
  {
    const body = [random(BASE64, 70), random(BASE64, 70), random(BASE64, 40)];
    many(
      'ssh2-encrypted-private-key',
      'request',
      [
        '---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----',
        'Comment: "rsa-key-20240101"',
        ...body,
        '---- END SSH2 ENCRYPTED PRIVATE KEY ----',
      ].join('\n'),
      body,
    );
  }
  {
    const key = pem(random, 'PRIVATE KEY', 4);
    const quoted = key.text
      .split('\n')
      .map((line) => `'${line}'`)
      .join(' ');
    many('pkcs8-printf', 'command', `printf '%s\\n' ${quoted} > /etc/ssl/private/app.key`, key.body);
  }
  add(
    'age-secret-key',
    'request',
    (v) => `# created: 2024-05-01\n# public key: age1${random(LOWER, 58)}\n${v}`,
    `AGE-SECRET-KEY-1${random(BECH32, 58)}`,
  );
  add(
    'eth-private-key-flag',
    'command',
    (v) => `cast send 0x${random(HEX, 40)} "mint()" --private-key ${v} --rpc-url $RPC`,
    `0x${random(HEX, 64)}`,
  );
  add('eth-private-key-wallet', 'delivery', (v) => `The deployer is \`new ethers.Wallet("${v}", provider)\`.`, `0x${random(HEX, 64)}`);
  {
    const key = pem(random, 'RSA PRIVATE KEY', 3);
    const wrapped = Buffer.from(`${key.text}\n`).toString('base64');
    add('base64-wrapped-key-echo', 'command', (v) => `echo '${v}' | base64 -d > ~/.ssh/id_rsa`, wrapped);
  }
  {
    const key = pem(random, 'EC PRIVATE KEY', 2);
    const wrapped = Buffer.from(`${key.text}\n`).toString('base64');
    add(
      'base64-wrapped-key-k8s',
      'request',
      (v) =>
        `apiVersion: v1\nkind: Secret\ntype: kubernetes.io/tls\ndata:\n  tls.crt: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t\n  tls.key: ${v}`,
      wrapped,
    );
  }
  {
    const key = pem(random, 'EC PRIVATE KEY', 2);
    many('pem-spaces', 'request', `the key, as the portal showed it: ${key.text.replace(/\n/g, ' ')}`, key.body);
  }
  {
    const key = pem(random, 'RSA PRIVATE KEY', 3);
    many('pem-crlf', 'request', `key.pem (from Windows):\r\n${key.text.replace(/\n/g, '\r\n')}`, key.body);
  }
  {
    const key = pem(random, 'RSA PRIVATE KEY', 3);
    const lines = key.text.split('\n');
    many(
      'pem-concatenated-literals',
      'delivery',
      `I put it in config.py:\nKEY = (\n${lines.map((line) => `    "${line}\\n"`).join('\n')}\n)`,
      key.body,
    );
  }
  {
    const key = pem(random, 'ENCRYPTED PRIVATE KEY', 3);
    many('pem-encrypted-escaped-crlf', 'request', `{"signingKey": "${key.text.replace(/\n/g, '\\r\\n')}"}`, key.body);
  }
  {
    const key = pem(random, 'DSA PRIVATE KEY', 3);
    many('pem-tabs', 'request', `\t${key.text.replace(/\n/g, '\n\t\t')}`, key.body);
  }

  // Vendor-prefixed tokens.
  add('square-access-token', 'request', (v) => `square: ${v}`, `sq0atp-${random(URLSAFE, 22)}`);
  add('square-oauth-secret', 'request', (v) => `SQUARE_APP_SECRET is ${v}`, `sq0csp-${random(URLSAFE, 43)}`);
  add('square-production-token', 'delivery', (v) => `Square production token: ${v}`, `EAAA${random(URLSAFE, 60)}`);
  add('tailscale-auth-key', 'command', (v) => `tailscale up --authkey=${v}`, `tskey-auth-k${random(ALNUM, 11)}CNTRL-${random(ALNUM, 33)}`);
  add('tailscale-api-key', 'request', (v) => `ts api ${v}`, `tskey-api-k${random(ALNUM, 11)}CNTRL-${random(ALNUM, 33)}`);
  add('planetscale-token', 'request', (v) => `planetscale service token ${v}`, `pscale_tkn_${random(URLSAFE, 43)}`);
  add(
    'planetscale-password',
    'command',
    (v) => `mysql -h aws.connect.psdb.cloud -u app --password=${v}`,
    `pscale_pw_${random(URLSAFE, 43)}`,
  );
  add('notion', 'request', (v) => `notion integration: ${v}`, `ntn_${random(DIGITS, 11)}${random(ALNUM, 35)}`);
  add('grafana-service-account', 'request', (v) => `grafana ${v}`, `glsa_${random(ALNUM, 32)}_${random(HEX, 8)}`);
  add('grafana-cloud', 'request', (v) => `grafana cloud token ${v}`, `glc_${random(BASE64, 80)}`);
  add(
    'databricks',
    'command',
    (v) => `databricks configure --host https://dbc-1234.cloud.databricks.com --token <<< ${v}`,
    `dapi${random(HEX, 32)}`,
  );
  add('postman', 'request', (v) => `postman api key ${v}`, `PMAK-${random(HEX, 24)}-${random(HEX, 34)}`);
  add('dropbox-short-lived', 'delivery', (v) => `The Dropbox token I used was ${v}`, `sl.B${random(URLSAFE, 135)}`);
  add('braintree', 'request', (v) => `braintree gateway ${v}`, `access_token$production$${random(LOWER + DIGITS, 16)}$${random(HEX, 32)}`);
  add(
    'fcm-server-key',
    'request',
    (v) => `firebase cloud messaging server key ${v}`,
    `AAAA${random(URLSAFE, 7)}:APA91b${random(URLSAFE, 134)}`,
  );
  add(
    'jwt-alg-none',
    'delivery',
    (v) => `The admin cookie was ${v}`,
    `${base64url('{"alg":"none","typ":"JWT"}')}.${base64url(`{"sub":"${random(DIGITS, 6)}","role":"admin"}`)}.`,
  );
  add('newrelic-user-key', 'request', (v) => `new relic ${v}`, `NRAK-${random(UPPER + DIGITS, 27)}`);
  add('prefect', 'request', (v) => `prefect ${v}`, `pnu_${random(ALNUM, 36)}`);
  add('pulumi', 'command', (v) => `pulumi login --access-token ${v}`, `pul-${random(HEX, 40)}`);
  add('readme', 'request', (v) => `readme.io ${v}`, `rdme_${random(LOWER + DIGITS, 70)}`);
  add('rubygems', 'request', (v) => `gem push key ${v}`, `rubygems_${random(HEX, 48)}`);
  add('brevo', 'request', (v) => `brevo ${v}`, `xkeysib-${random(HEX, 64)}-${random(ALNUM, 16)}`);
  add('sentry-user-token', 'request', (v) => `sentry ${v}`, `sntryu_${random(HEX, 64)}`);
  add('typeform', 'request', (v) => `typeform ${v}`, `tfp_${random(URLSAFE, 44)}_${random(URLSAFE, 14)}`);
  add('groq', 'request', (v) => `groq ${v}`, `gsk_${random(ALNUM, 52)}`);
  add('xai', 'request', (v) => `grok api ${v}`, `xai-${random(ALNUM, 80)}`);
  add('openrouter', 'request', (v) => `openrouter ${v}`, `sk-or-v1-${random(HEX, 64)}`);
  add('replicate', 'request', (v) => `replicate ${v}`, `r8_${random(ALNUM, 37)}`);
  add('contentful', 'request', (v) => `contentful ${v}`, `CFPAT-${random(URLSAFE, 43)}`);
  add('docker-hub-pat', 'command', (v) => `echo ${v} | docker login -u ci --password-stdin`, `dckr_pat_${random(URLSAFE, 27)}`);
  add('figma', 'request', (v) => `figma ${v}`, `figd_${random(URLSAFE, 40)}`);
  add('google-oauth-access', 'delivery', (v) => `gcloud printed ${v}`, `ya29.a0${random(URLSAFE, 150)}`);
  add('mapbox-secret', 'request', (v) => `mapbox ${v}`, `sk.eyJ1Ijoi${random(URLSAFE, 50)}.${random(URLSAFE, 22)}`);
  add('easypost', 'request', (v) => `easypost ${v}`, `EZAK${random(HEX, 54)}`);
  add('duffel', 'request', (v) => `duffel ${v}`, `duffel_live_${random(URLSAFE, 43)}`);
  add('shippo', 'request', (v) => `shippo ${v}`, `shippo_live_${random(HEX, 40)}`);
  add('heroku-new', 'request', (v) => `heroku ${v}`, `HRKU-AA${random(URLSAFE, 58)}`);
  add('azure-ad-client-secret', 'request', (v) => `app registration secret ${v}`, `${random(ALNUM, 3)}8Q~${random(URLSAFE, 34)}`);
  add('onepassword-service-account', 'command', (v) => `OP_SERVICE_ACCOUNT_TOKEN=${v} op item list`, `ops_eyJ${random(URLSAFE, 250)}`);
  add('jfrog', 'request', (v) => `artifactory api key ${v}`, `AKCp${random(ALNUM, 69)}`);

  // Config files that hold a credential.
  add(
    'npmrc-auth',
    'request',
    (v) => `.npmrc:\nregistry=https://npm.corp.example/\n_auth=${v}\nalways-auth=true`,
    Buffer.from(`ci:${random(ALNUM, 16)}`).toString('base64'),
  );
  add(
    'npmrc-password',
    'request',
    (v) => `//npm.corp.example/:username=ci\n//npm.corp.example/:_password=${v}`,
    Buffer.from(random(ALNUM, 18)).toString('base64'),
  );
  add('npmrc-authtoken-uuid', 'command', (v) => `echo "//npm.corp.example/repository/npm/:_authToken=${v}" >> ~/.npmrc`, uuid(random));
  add(
    'docker-config-auth',
    'request',
    (v) => `~/.docker/config.json:\n{\n  "auths": {\n    "registry.corp.example": {\n      "auth": "${v}"\n    }\n  }\n}`,
    Buffer.from(`deploy:${random(ALNUM, 20)}`).toString('base64'),
  );
  add('netrc-one-line', 'request', (v) => `machine api.heroku.com login me@example.com password ${v}`, uuid(random));
  add(
    'netrc-lines',
    'command',
    (v) => `cat >> ~/.netrc <<EOF\nmachine git.corp.example\n  login ci\n  password ${v}\nEOF`,
    random(ALNUM, 20),
  );
  add('pgpass', 'command', (v) => `echo 'db.internal:5432:shop:shop_app:${v}' > ~/.pgpass`, random(ALNUM, 16));
  add('sqlplus', 'command', (v) => `sqlplus scott/${v}@//db.corp.example:1521/ORCL`, random(ALNUM, 12));
  add('pypirc', 'request', (v) => `[pypi]\nusername = __token__\npassword = ${v}`, random(ALNUM, 24));
  add('git-credentials', 'request', (v) => `~/.git-credentials: https://ci:${v}@git.corp.example`, random(ALNUM, 20));
  add('aws-config-sso', 'request', (v) => `[default]\naws_session_token=${v}`, random(BASE64, 200));
  add('rails-secret-key-base', 'request', (v) => `production:\n  secret_key_base: ${v}`, random(HEX, 128));
  add(
    'wp-config-salt',
    'delivery',
    (v) => `wp-config.php now has define( 'AUTH_KEY', '${v}' );`,
    random(`${ALNUM}!@#%^&*()-_[]{}<>~+=,.;:/?|`, 64),
  );
  add(
    'xml-password',
    'request',
    (v) => `<dataSource>\n  <username>app</username>\n  <password>${v}</password>\n</dataSource>`,
    random(ALNUM, 14),
  );
  add('dotnet-appsetting', 'request', (v) => `<add key="StripeApiKey" value="${v}" />`, random(ALNUM, 32));
  add(
    'sqlserver-connection-string',
    'request',
    (v) => `Server=tcp:sql.corp.example,1433;Database=shop;User Id=sa;Password=${v};Encrypt=true;`,
    random(ALNUM, 16),
  );
  add('jdbc-password-param', 'request', (v) => `jdbc:postgresql://db:5432/shop?user=app&password=${v}&ssl=true`, random(ALNUM, 14));
  add('php-define', 'request', (v) => `define('DB_PASSWORD', '${v}');`, random(ALNUM, 14));
  add('ruby-hash-rocket', 'request', (v) => `:password => '${v}',`, random(ALNUM, 14));
  add('go-struct-field', 'delivery', (v) => `I set it inline: \`Config{User: "app", Password: "${v}"}\``, random(ALNUM, 14));
  add(
    'hardhat-mnemonic',
    'request',
    (v) => `accounts: { mnemonic: "${v}" }`,
    'ribbon lunar absent oxygen tissue velvet orbit fence cattle radar hurdle picnic',
  );
  add('k8s-secret-base64', 'request', (v) => `kind: Secret\ndata:\n  DB_PASS: ${v}`, Buffer.from(random(ALNUM, 18)).toString('base64'));
  add('cookie-header', 'command', (v) => `curl -b 'sessionid=${v}' https://admin.corp.example/`, random(LOWER + DIGITS, 32));
  add('x-auth-key-header', 'command', (v) => `curl -H "X-Auth-Key: ${v}" https://api.cloudflare.com/client/v4/zones`, random(HEX, 37));

  // Signed URLs and URL parameters.
  add(
    'azure-sas',
    'request',
    (v) => `https://prodstore.blob.core.windows.net/backups?sv=2022-11-02&ss=b&srt=co&sp=rl&se=2026-12-31T00:00:00Z&spr=https&sig=${v}`,
    encodeURIComponent(`${random(BASE64, 43)}=`),
  );
  add('access-token-param', 'command', (v) => `curl "https://graph.facebook.com/v19.0/me?access_token=${v}"`, `EAAB${random(ALNUM, 120)}`);
  add('api-key-param', 'request', (v) => `https://api.weather.example/v1/forecast?q=Paris&api_key=${v}`, random(HEX, 32));
  add('token-param', 'delivery', (v) => `The download link was https://files.corp.example/dl/report.pdf?token=${v}`, random(URLSAFE, 40));
  add(
    's3-presigned',
    'request',
    (v) => `https://bucket.s3.amazonaws.com/a.zip?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Signature=${v}`,
    random(HEX, 64),
  );

  // Webhook URLs.
  add(
    'teams-webhook',
    'request',
    (v) => `post alerts to ${v}`,
    `https://corp.webhook.office.com/webhookb2/${uuid(random)}@${uuid(random)}/IncomingWebhook/${random(HEX, 32)}/${uuid(random)}`,
  );
  add(
    'zapier-webhook',
    'command',
    (v) => `curl -X POST ${v} -d '{"ok":1}'`,
    `https://hooks.zapier.com/hooks/catch/${random(DIGITS, 7)}/${random(LOWER + DIGITS, 6)}/`,
  );
  add('mattermost-webhook', 'request', (v) => `mattermost: ${v}`, `https://chat.corp.example/hooks/${random(LOWER + DIGITS, 26)}`);
  add(
    'google-chat-webhook',
    'request',
    (v) => `google chat ${v}`,
    `https://chat.googleapis.com/v1/spaces/AAAA${random(URLSAFE, 7)}/messages?key=AIzaSy${random(URLSAFE, 33)}&token=${random(URLSAFE, 43)}`,
  );

  // Command lines of other tools.
  add('redis-cli-a', 'command', (v) => `redis-cli -h cache.internal -a ${v} info`, random(ALNUM, 20));
  add('ldapsearch-w', 'command', (v) => `ldapsearch -x -D "cn=admin,dc=corp" -w ${v} -b dc=corp`, random(ALNUM, 14));
  add('smbclient', 'command', (v) => `smbclient //files/share -U backup%${v}`, random(ALNUM, 14));
  add('openssl-passin', 'command', (v) => `openssl rsa -in enc.key -passin pass:${v} -out dec.key`, random(ALNUM, 14));
  add('keytool-storepass', 'command', (v) => `keytool -list -keystore app.jks -storepass ${v}`, random(ALNUM, 14));
  add('curl-oauth2-bearer', 'command', (v) => `curl --oauth2-bearer ${v} https://api.corp.example`, random(URLSAFE, 40));
  add('wget-password', 'command', (v) => `wget --user=ci --password ${v} https://dl.corp.example/build.tgz`, random(ALNUM, 14));
  add('net-use', 'command', (v) => `net use Z: \\\\fs01\\share ${v} /user:CORP\\backup`, random(ALNUM, 14));
  add('psql-conninfo', 'command', (v) => `psql "host=db.internal dbname=shop user=app password=${v}"`, random(ALNUM, 14));

  // Split across literals or lines.
  {
    const head = `ghp_${random(ALNUM, 18)}`;
    const tail = random(ALNUM, 18);
    many('split-string-concat', 'delivery', `I left it as \`const token = "${head}" + "${tail}";\``, [head, tail]);
  }
  {
    const head = `sk_live_${random(ALNUM, 12)}`;
    const tail = random(ALNUM, 12);
    many('split-python-implicit', 'request', `STRIPE = (\n    "${head}"\n    "${tail}"\n)`, [head, tail]);
  }
  {
    const head = random(ALNUM, 16);
    const tail = random(ALNUM, 16);
    many('split-line-continuation', 'command', `export DEPLOY_TOKEN=${head}\\\n${tail}\n./deploy.sh`, [head, tail]);
  }
  {
    const value = random(URLSAFE, 40);
    add('header-on-next-line', 'command', (v) => `curl https://api.corp.example/v2/jobs \\\n  -H "Authorization: Bearer \\\n${v}"`, value);
  }
  return out;
}
