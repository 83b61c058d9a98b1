// Secrets recognised by where they sit rather than by their shape: a credential file's own syntax
// (.npmrc, docker's config.json, .netrc, .pgpass, XML and .NET settings, PHP's define), a
// database or file-share tool's command line, a URL's query parameters (a signed URL's `sig=`,
// `token=`, `api_key=`), a session cookie, and a raw 0x-prefixed 64-hex key next to a word that
// says it is one (`--private-key`, `new Wallet(…)`).
import { isPath, looksLikeKey, notPlaceholder, type Rule } from './secret-rule-kit.js';

// A flag's value: quoted, or one word that does not start a new flag.
const FLAG_VALUE = String.raw`(?:'([^'\n]+)'|"([^"\n]+)"|([^\s"'` + '`' + String.raw`-][^\s"'` + '`' + String.raw`]*))`;
// The rest of a command line, short of a pipe or another command.
const SAME_COMMAND = String.raw`[^\n` + '`' + String.raw`|;&]{0,200}?`;

function basicAuth(value: string): boolean {
  return /:./.test(Buffer.from(value, 'base64').toString('latin1'));
}

/** A URL parameter's value: long enough, and not a single word. */
function parameterValue(value: string): boolean {
  return notPlaceholder(value) && value.length >= 8 && (/\d/.test(value) || value.length >= 20) && !/^[a-z]+$/i.test(value);
}

export const CONTEXT_RULES: readonly Rule[] = [
  // .npmrc: `_auth=`, `_password=`, `//host/:_authToken=`.
  {
    rule: 'npmrc',
    pattern: /(?:^|[\s:/'"])_(?:auth|authToken|password)\s*=\s*([^\s"'`]+)/dgm,
    accept: (value) => notPlaceholder(value) && !/[()[\]]/.test(value),
  },
  // docker's config.json: `"auth": "<base64 of user:password>"`.
  { rule: 'docker-auth', pattern: /"auth"\s*:\s*"([A-Za-z0-9+/]{8,}={0,2})"/dg, accept: basicAuth },
  // .netrc, on one line or several.
  {
    rule: 'netrc',
    pattern: /\bmachine\s+[^\s'"]+(?:\s+login\s+[^\s'"]+)?\s+password\s+([^\s"'`]+)/dg,
    accept: notPlaceholder,
  },
  // .pgpass: host:port:database:user:password.
  {
    rule: 'pgpass',
    pattern: /(?:^|[\s'"])[A-Za-z0-9.*_-]+:(?:\d{2,5}|\*):[^\s:'"]+:[^\s:'"]+:([^\s:'"]{3,})(?=$|[\s'"])/dgm,
    accept: notPlaceholder,
  },
  // Database and file-share tools: `sqlplus user/password@db`, `redis-cli -a`, `ldapsearch -w`,
  // `smbclient -U user%password`, `net use \\host\share password /user:…`, `openssl … pass:…`.
  { rule: 'password-flag', pattern: /\bsqlplus\s+(?:-[A-Za-z]+\s+)*["']?[^\s/@"'-][^\s/@"']*\/([^\s@/"']+)/dg, accept: notPlaceholder },
  {
    rule: 'password-flag',
    pattern: new RegExp(String.raw`\bredis-cli\b${SAME_COMMAND}\s-a\s+${FLAG_VALUE}`, 'dg'),
    accept: notPlaceholder,
  },
  {
    rule: 'password-flag',
    pattern: new RegExp(String.raw`\bldap[a-z]*\b${SAME_COMMAND}\s-w\s+${FLAG_VALUE}`, 'dg'),
    accept: notPlaceholder,
  },
  {
    rule: 'password-flag',
    pattern: /\b(?:smbclient|rpcclient|smbmap)\b[^\n`|;&]{0,200}?\s-U\s+["']?[^\s%"']+%([^\s"'`]+)/dg,
    accept: notPlaceholder,
  },
  { rule: 'password-flag', pattern: /\bnet\s+use\s+(?:[^\s/]+\s+){1,2}([^\s/"']+)\s+\/user:/dgi, accept: notPlaceholder },
  { rule: 'password-flag', pattern: /(?:^|\s)pass:([^\s"'`]+)/dg, accept: notPlaceholder },
  // XML and .NET settings: `<password>…</password>`, `<add key="ApiKey" value="…"/>`.
  {
    rule: 'secret-assignment',
    pattern: /<(?:[A-Za-z_:][\w:.-]{0,40})?(?:password|passwd|secret|token|apikey|api_key|credential)s?>([^<\n]{3,300})<\//dgi,
    accept: (value) => notPlaceholder(value),
  },
  {
    rule: 'secret-assignment',
    pattern:
      /\b(?:key|name)\s*=\s*"[^"\n]{0,60}(?:password|secret|token|api[_-]?key|connectionstring)[^"\n]{0,60}"\s+value\s*=\s*"([^"\n]{3,300})"/dgi,
    accept: (value) => notPlaceholder(value) && !isPath(value),
  },
  // PHP: `define('DB_PASSWORD', '…')`, WordPress's `define('AUTH_KEY', '…')`.
  {
    rule: 'secret-assignment',
    pattern:
      /\bdefine\(\s*['"][A-Z0-9_]{0,40}(?:PASSWORD|PASS|SECRET|KEY|TOKEN|SALT)[A-Z0-9_]{0,40}['"]\s*,\s*(?:'([^'\n]+)'|"([^"\n]+)")/dg,
    accept: (value) => notPlaceholder(value) && !/unique phrase/i.test(value),
  },
  // A URL's parameters: signed URLs (Azure SAS `sig=`, S3's `X-Amz-Signature=`) and tokens in a query.
  {
    rule: 'url-parameter',
    pattern:
      /[?&;](?:sig|signature|token|access_token|refresh_token|id_token|auth_token|private_token|api_key|apikey|api-key|key|client_secret|secret|password|passwd|pwd|auth|X-Amz-Signature|X-Amz-Security-Token|X-Amz-Credential|X-Goog-Signature|X-Goog-Credential)=([^&\s"'#<>`]+)/dgi,
    accept: parameterValue,
  },
  // A session cookie sent by curl or in a header.
  {
    rule: 'cookie',
    pattern:
      /(?:\bcookie:\s*|\s-b\s+["']?|--cookie\s+["']?)[^\n"']{0,200}?\b[\w.-]{0,40}(?:sess|session|sid|token|auth|jwt)[\w.-]{0,40}=([^;\s"']{16,})/dgi,
    accept: looksLikeKey,
  },
  // A raw 64-hex private key (Ethereum and the like) beside a word that says it is one.
  {
    rule: 'privatekey',
    pattern: /\b(?:private[_ -]?key|privkey|secret|wallet|signer|mnemonic|deployer)[^\n]{0,40}?\b(0x[0-9a-fA-F]{64})(?![0-9a-fA-F])/dgi,
  },
];
