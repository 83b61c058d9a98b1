// T5 fixtures: secrets that look real to a scanner (made up here: they open nothing), and a
// handoff document that quotes them beside things that only look like secrets.
export const SECRETS = {
  awsKeyId: 'AKIAZ3MSJV4WWTFZ6QRT',
  awsSecret: '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',
  githubToken: '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',
  pemBody: 'MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun',
  dbPassword: 'hunter2-Very-Secret-42',
  slack: 'xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx',
} as const;

export const DOCUMENT_WITH_SECRETS = `# Handoff

## 💬 conversation breakpoint
The user said: deploy with these, and never commit them:

    export AWS_ACCESS_KEY_ID=${SECRETS.awsKeyId}
    aws_secret_access_key = ${SECRETS.awsSecret}
    DB_PASSWORD=${SECRETS.dbPassword}

The CI token is ${SECRETS.githubToken} and the bot's is ${SECRETS.slack}.

-----BEGIN RSA PRIVATE KEY-----
${SECRETS.pemBody}
VTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK
-----END RSA PRIVATE KEY-----

## 📊 current state
MAX_TOKENS=4096, maxContextTokens: 128000, OPENAI_API_KEY=… (set it yourself), GITHUB_TOKEN=\${{ secrets.GH }}.
`;
