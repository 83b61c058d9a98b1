// The sentences of the user's requests that state a rule ("keep the public API stable", "never
// touch the migrations", "不要修改公共接口"): what the offline document puts under ⚠️, so a
// constraint said once in the middle of a session survives without a model to notice it.

/** Words that make a sentence a rule, in English, German, French, Spanish, Chinese and Japanese. */
const RULE_WORDS: readonly RegExp[] = [
  /(?<!\p{L})(keep|don'?t|do not|never|must|mustn'?t|only|always|avoid|should(?:n'?t| not)?|make sure|at most|no more than|without|prefer|stay|leave)(?!\p{L})/iu,
  /(?<!\p{L})(nicht|nie|niemals|immer|muss|müssen|darf|dürfen|nur|behalte|beibehalten|keine?[nms]?)(?!\p{L})/iu,
  /(?<!\p{L})(jamais|toujours|doit|doivent|seulement|uniquement|garde[rz]?|ne .+ pas|n'.+ pas)(?!\p{L})/iu,
  /(?<!\p{L})(nunca|siempre|debe|deben|sólo|solo|mantén|mantener|no)(?!\p{L})/iu,
  /不要|别|不能|不可|必须|务必|只能|只用|总是|始终|永远|保持|禁止|不得|しないで|必ず|だけ|禁止/u,
];

export const MAX_RULE_LENGTH = 300;

function sentencesOf(text: string): string[] {
  return text
    .split(/\n+|(?<=[.!?])\s+|(?<=[。！？；])/u)
    .map((sentence) => sentence.trim())
    .filter((sentence) => sentence.length > 0);
}

function cut(text: string, limit: number): string {
  return text.length > limit ? `${text.slice(0, limit)}…` : text;
}

/** The rule sentences of the requests, in order, each once, each cut to MAX_RULE_LENGTH characters. */
export function ruleSentences(requests: readonly string[]): string[] {
  // A set: a long session states thousands of rules, and each is looked up once.
  const rules = new Set<string>();
  for (const request of requests) {
    for (const sentence of sentencesOf(request)) {
      if (!RULE_WORDS.some((pattern) => pattern.test(sentence))) continue;
      rules.add(cut(sentence, MAX_RULE_LENGTH));
    }
  }
  return [...rules];
}
