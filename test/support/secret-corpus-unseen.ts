// A third corpus, written after the rules were: the held-out corpus was read by whoever wrote the
// rules, so its recall flatters them. These kinds were chosen to be unlike both other corpora
// (server configs, SQL, scripts, other headers, other key containers), and the rules were not
// changed after it was measured: its recall is the honest figure for secrets nobody tuned to.
import { ALNUM, BASE64, DIGITS, generator, HEX, LOWER, type PlantedSecret, type SecretPlace, UPPER, URLSAFE } from './secret-corpus.js';

export function unseenSecretCorpus(seed = 35): PlantedSecret[] {
  const random = generator(seed);
  const out: PlantedSecret[] = [];
  const add = (kind: string, place: SecretPlace, make: (value: string) => string, value: string) =>
    out.push({ kind, place, text: make(value), secrets: [value] });

  add(
    'wireguard-private-key',
    'request',
    (v) => `[Interface]\nAddress = 10.0.0.2/32\nPrivateKey = ${v}\nDNS = 1.1.1.1`,
    `${random(BASE64, 43)}=`,
  );
  {
    const lines = Array.from({ length: 4 }, () => random(HEX, 32));
    out.push({
      kind: 'openvpn-static-key',
      place: 'request',
      text: `<tls-auth>\n-----BEGIN OpenVPN Static key V1-----\n${lines.join('\n')}\n-----END OpenVPN Static key V1-----\n</tls-auth>`,
      secrets: lines,
    });
  }
  add('cloudflared-tunnel-token', 'command', (v) => `cloudflared service install ${v}`, `eyJhIjoi${random(URLSAFE, 150)}`);
  add('okta-ssws', 'command', (v) => `curl -H "Authorization: SSWS ${v}" https://corp.okta.com/api/v1/users`, `00${random(URLSAFE, 40)}`);
  add('aws-configure-set', 'command', (v) => `aws configure set aws_secret_access_key ${v}`, random(BASE64, 40));
  add('gh-secret-set', 'command', (v) => `gh secret set API_KEY --body "${v}"`, random(ALNUM, 32));
  add('kubectl-from-literal', 'command', (v) => `kubectl create secret generic db --from-literal=password=${v}`, random(ALNUM, 16));
  add('cargo-credentials', 'request', (v) => `~/.cargo/credentials.toml:\n[registry]\ntoken = "${v}"`, `cio${random(ALNUM, 32)}`);
  add(
    'composer-auth',
    'request',
    (v) => `{"http-basic": {"repo.corp.example": {"username": "ci", "password": "${v}"}}}`,
    random(ALNUM, 18),
  );
  add(
    'maven-settings',
    'request',
    (v) => `<server>\n  <id>corp</id>\n  <username>ci</username>\n  <password>${v}</password>\n</server>`,
    random(ALNUM, 16),
  );
  add('nuget-cleartext', 'request', (v) => `<add key="ClearTextPassword" value="${v}" />`, random(ALNUM, 16));
  add('gradle-properties', 'request', (v) => `ossrhUsername=ci\nossrhPassword=${v}`, random(ALNUM, 16));
  add('smtp-url', 'request', (v) => `EMAIL_URL=smtps://alerts:${v}@smtp.corp.example:465`, random(ALNUM, 16));
  add('ldap-bindpw', 'request', (v) => `/etc/nslcd.conf:\nbinddn cn=reader,dc=corp\nbindpw ${v}`, random(ALNUM, 14));
  add('redis-requirepass', 'request', (v) => `redis.conf:\nbind 127.0.0.1\nrequirepass ${v}`, random(ALNUM, 20));
  add('sql-alter-user', 'command', (v) => `psql -c "ALTER USER app WITH PASSWORD '${v}';"`, random(ALNUM, 14));
  add('sql-identified-by', 'request', (v) => `CREATE USER 'app'@'%' IDENTIFIED BY '${v}';`, random(ALNUM, 14));
  add('spring-keystore', 'request', (v) => `server.ssl.key-store-password=${v}`, random(ALNUM, 14));
  add('jupyter-token', 'request', (v) => `c.NotebookApp.token = '${v}'`, random(HEX, 48));
  add('laravel-app-key', 'request', (v) => `APP_KEY=base64:${v}`, `${random(BASE64, 43)}=`);
  add('rails-master-key', 'command', (v) => `$ cat config/master.key\n${v}`, random(HEX, 32));
  add('twitter-bearer', 'request', (v) => `twitter bearer ${v}`, `AAAAAAAAAAAAAAAAAAAAA${random(ALNUM, 20)}%3D${random(ALNUM, 50)}`);
  add('pagerduty-routing-key', 'request', (v) => `routing_key: "${v}"`, `R0${random(HEX, 30)}`);
  add(
    'expect-send',
    'command',
    (v) => `expect -c 'spawn ssh admin@10.0.0.9; expect "password:"; send "${v}\\r"; interact'`,
    `${random(ALNUM, 10)}!`,
  );
  add('powershell-securestring', 'command', (v) => `$pw = ConvertTo-SecureString "${v}" -AsPlainText -Force`, random(ALNUM, 14));
  add('python-requests-auth', 'delivery', (v) => `I called \`requests.get(url, auth=("admin", "${v}"))\`.`, random(ALNUM, 14));
  add('sudo-stdin', 'command', (v) => `echo '${v}' | sudo -S systemctl restart app`, random(ALNUM, 14));
  add(
    'form-client-secret',
    'command',
    (v) => `curl -d "grant_type=client_credentials&client_id=app&client_secret=${v}" https://auth.corp.example/token`,
    random(URLSAFE, 32),
  );
  add('docker-run-env', 'command', (v) => `docker run -e POSTGRES_PASSWORD=${v} postgres:16`, random(ALNUM, 16));
  add(
    'supabase-service-role',
    'request',
    (v) => `SUPABASE_SERVICE_ROLE_KEY=${v}`,
    `eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ${random(URLSAFE, 100)}.${random(URLSAFE, 43)}`,
  );
  add(
    'github-app-installation',
    'command',
    (v) => `git clone https://x-access-token:${v}@github.com/corp/app.git`,
    `ghs_${random(ALNUM, 36)}`,
  );
  add('auth0-client-secret', 'request', (v) => `AUTH0_CLIENT_SECRET=${v}`, random(URLSAFE, 64));
  add('yaml-api-key-lower', 'request', (v) => `services:\n  geocoder:\n    api_key: ${v}`, random(HEX, 32));
  add('ini-secret', 'request', (v) => `[oauth]\nclient_id = app\nclient_secret = ${v}`, random(ALNUM, 40));
  add('connection-uri-mssql', 'request', (v) => `mssql+pyodbc://sa:${v}@sql.corp.example:1433/shop`, random(ALNUM, 16));
  add('hex-hmac-secret', 'request', (v) => `WEBHOOK_SIGNING_SECRET="${v}"`, random(HEX, 64));
  add('uppercase-key-var', 'request', (v) => `MAPS_KEY=${v}`, random(ALNUM, 39));
  add('chinese-password', 'request', (v) => `数据库密码: ${v}`, `${random(ALNUM, 12)}#`);
  add(
    'lowercase-words-passphrase',
    'request',
    (v) => `the wifi passphrase is ${v}`,
    `${random(LOWER, 6)}-${random(LOWER, 5)}-${random(DIGITS, 2)}`,
  );
  add(
    'upper-digits-license',
    'request',
    (v) => `license key: ${v}`,
    `${random(UPPER + DIGITS, 5)}-${random(UPPER + DIGITS, 5)}-${random(UPPER + DIGITS, 5)}-${random(UPPER + DIGITS, 5)}`,
  );
  return out;
}
