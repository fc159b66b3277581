import { z } from 'zod';

/**
 * An agent's identity: a persona that shapes its system prompt. Two forms: an AIEOS-shaped JSON
 * document (names, bio, psychology, linguistics, motivations, capabilities, physicality,
 * history — fields this version does not know are kept, not refused, so a real AIEOS file
 * imports) or a Markdown persona (the text is the persona). Pure: validation and the prompt.
 */

const text = (max = 2000) =>
  z
    .string()
    .trim()
    .max(max, { error: `at most ${max} characters` });
const list = (max = 40) => z.array(text(300)).max(max, { error: `at most ${max} entries` });
const unit = z.number().min(0, { error: 'from 0 to 1' }).max(1, { error: 'from 0 to 1' });

export const IdentitySchema = z.looseObject({
  names: z.looseObject({
    display: text(80).min(1, { error: 'the display name is required' }),
    full: text(200).optional(),
    aliases: list(20).optional(),
  }),
  bio: z.looseObject({ origin: text().optional(), current: text().optional(), summary: text().optional() }).optional(),
  psychology: z
    .looseObject({
      mbti: z
        .string()
        .regex(/^[EI][NS][TF][JP](?:-[AT])?$/i, { error: 'an MBTI type such as INTJ or ENFP-T' })
        .optional(),
      ocean: z
        .looseObject({
          openness: unit.optional(),
          conscientiousness: unit.optional(),
          extraversion: unit.optional(),
          agreeableness: unit.optional(),
          neuroticism: unit.optional(),
        })
        .optional(),
      moral_compass: list().optional(),
      traits: list().optional(),
    })
    .optional(),
  linguistics: z
    .looseObject({
      formality: z.union([z.enum(['formal', 'neutral', 'casual']), unit]).optional(),
      catchphrases: list().optional(),
      forbidden_words: list(200).optional(),
      vocabulary: list(200).optional(),
      style: text().optional(),
    })
    .optional(),
  motivations: z.looseObject({ core_drive: text().optional(), goals: list().optional(), fears: list().optional() }).optional(),
  capabilities: z.looseObject({ skills: list().optional(), tools: list().optional(), knowledge_domains: list().optional() }).optional(),
  physicality: z.looseObject({ avatar: text().optional() }).optional(),
  history: z.looseObject({ events: list(100).optional() }).optional(),
});
/** @typedef {z.infer<typeof IdentitySchema>} Identity */

export const MARKDOWN_MAX = 20_000;

/**
 * A stored identity: which form, and its text as the user wrote it.
 * @typedef {{format: 'json' | 'markdown', text: string}} IdentitySource
 */
export const IdentitySourceSchema = z.object({ format: z.enum(['json', 'markdown']), text: z.string().max(100_000) });

/**
 * Validates an identity as written. Errors name the field ("psychology.mbti: an MBTI type …").
 * @param {IdentitySource} source
 * @returns {{ok: true, prompt: string, identity?: Identity} | {ok: false, errors: string[]}}
 */
export function parseIdentity(source) {
  if (source.format === 'markdown') {
    const body = source.text.replace(/^\uFEFF/, '').trim();
    if (!body) return { ok: false, errors: ['The persona is empty: write who the agent is, or remove the identity.'] };
    if (body.length > MARKDOWN_MAX)
      return {
        ok: false,
        errors: [`The persona is ${body.length.toLocaleString('en')} characters; at most ${MARKDOWN_MAX.toLocaleString('en')}.`],
      };
    return { ok: true, prompt: body };
  }
  /** @type {unknown} */
  let json;
  try {
    json = JSON.parse(source.text);
  } catch (err) {
    return { ok: false, errors: [`Not valid JSON: ${/** @type {Error} */ (err).message}`] };
  }
  const parsed = IdentitySchema.safeParse(json);
  if (!parsed.success)
    return { ok: false, errors: parsed.error.issues.map((i) => `${i.path.length ? i.path.join('.') : 'identity'}: ${i.message}`) };
  return { ok: true, identity: parsed.data, prompt: identityPrompt(parsed.data) };
}

/** @param {string} label @param {unknown} value */
const line = (label, value) => {
  if (value === undefined || value === null || value === '') return '';
  if (Array.isArray(value)) return value.length ? `- ${label}: ${value.join('; ')}\n` : '';
  return `- ${label}: ${String(value)}\n`;
};

/**
 * The system prompt section an AIEOS identity becomes.
 * @param {Identity} id
 */
export function identityPrompt(id) {
  const n = id.names;
  let out = `You are ${n.display}${n.full && n.full !== n.display ? ` (${n.full})` : ''}.${
    n.aliases?.length ? ` You also answer ` + `to ${n.aliases.join(', ')}.` : ''
  }\n`;
  const bio = [id.bio?.summary, id.bio?.origin, id.bio?.current].filter(Boolean).join(' ');
  if (bio) out += `\n${bio}\n`;
  const p = id.psychology;
  if (p) {
    const ocean = p.ocean
      ? Object.entries(p.ocean)
          .filter(([, v]) => typeof v === 'number')
          .map(([k, v]) => `${k} ${Math.round(Number(v) * 100)}%`)
          .join(', ')
      : '';
    const body =
      line('Personality type', p.mbti) + line('Big Five', ocean) + line('Traits', p.traits) + line('Moral compass', p.moral_compass);
    if (body) out += `\nPersonality:\n${body}`;
  }
  const l = id.linguistics;
  if (l) {
    const formality = typeof l.formality === 'number' ? `${Math.round(l.formality * 100)}% formal` : l.formality;
    const body =
      line('Formality', formality) +
      line('Style', l.style) +
      line('Catchphrases you may use', l.catchphrases) +
      line('Preferred vocabulary', l.vocabulary) +
      line('Never use these words', l.forbidden_words);
    if (body) out += `\nHow you speak:\n${body}`;
  }
  const m = id.motivations;
  if (m) {
    const body = line('Core drive', m.core_drive) + line('Goals', m.goals) + line('Fears', m.fears);
    if (body) out += `\nMotivations:\n${body}`;
  }
  const c = id.capabilities;
  if (c) {
    const body = line('Skills', c.skills) + line('Tools you favour', c.tools) + line('Knowledge domains', c.knowledge_domains);
    if (body) out += `\nCapabilities:\n${body}`;
  }
  if (id.history?.events?.length) out += `\nHistory:\n${line('Key events', id.history.events)}`;
  return out.trim();
}

/** A starting AIEOS document for the editor. */
export const IDENTITY_TEMPLATE = JSON.stringify(
  {
    names: { display: 'Ada', full: 'Ada, research assistant', aliases: [] },
    bio: { summary: 'A careful research assistant who checks sources and says what is uncertain.' },
    psychology: { mbti: 'INTJ', traits: ['precise', 'curious'] },
    linguistics: { formality: 'neutral', catchphrases: [], forbidden_words: [] },
    motivations: { core_drive: 'Get the facts right.', goals: [], fears: [] },
    capabilities: { skills: ['research', 'summarizing'], tools: [], knowledge_domains: [] },
  },
  null,
  2,
);
