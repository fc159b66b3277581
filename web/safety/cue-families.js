/**
 * Which attack FAMILY each of the InputSanitizer's rules and cue lexicons was written for (issue
 * 32 §7). The rules and lexicons were written by people reading the project's injection corpora,
 * so they know the families those corpora hold. To measure whether the detector generalises to a
 * family it was never built for, the evaluation (scripts/train-injection-model.mjs) holds the
 * family out of EVERYTHING: of the learned model's training data and of the hand-written
 * knowledge — `new InputSanitizer({ without: [family] })` switches off every rule and lexicon
 * listed here for that family (a lexicon switched off never matches, in the rules and as a
 * feature of the learned model).
 *
 * A rule or lexicon belongs to a family when it describes that family's shape (the families are
 * described in tests/fixtures/injection-families.mjs): dismissing instructions, a forged turn, an
 * order about the answer, a condition on what the user asks, a link that carries data out, a tool
 * or a command, an encoding or another language, a persona without limits, a dictated verdict, a
 * request for the hidden prompt. What no family owns is GENERAL and stays on in every fold: that
 * the text speaks to an AI ("Note to the assistant:", "AI agents reading this must …"), is in
 * the second person, opens with an order, forces its wording ("only", "exactly"), or keeps
 * something from the user — what every indirect injection shares, whatever its shape — and the
 * exclusions that keep ordinary text unflagged. The decoders (disguises.js) stay on too: they turn
 * base64 or a cipher back into text, like NFKC does for styled letters, and say nothing about what
 * an order looks like; what the decoded text says is judged by the rules left on. Code-comment
 * injections have no cue of their own: a comment is where the order sits, and the order is
 * judged by the general cues.
 *
 * Runtime never passes `without`: this table costs nothing outside the evaluation. Pure data.
 */

/** Flag names (the rules' and the cues' `rule`) → the families they were written for. */
export const RULE_FAMILIES = /** @type {const} */ ({
  ignore_instructions: ['ignore_previous'],
  instructions_revoked: ['ignore_previous'],
  new_instructions: ['ignore_previous'],
  nevermind: ['ignore_previous'],
  screaming_stop: ['ignore_previous'],
  output_override: ['ignore_previous'],
  system_role: ['forged_turns'],
  chat_template_token: ['forged_turns'],
  forged_turn: ['forged_turns'],
  answer_order: ['answer_manipulation'],
  unrelated_task: ['answer_manipulation'],
  conditional_trigger: ['conditional_trigger'],
  markdown_exfiltration: ['exfiltration'],
  exfiltration_request: ['exfiltration'],
  tool_order: ['tool_command'],
  tool_call_injection: ['tool_command'],
  dangerous_command: ['tool_command'],
  fake_authorization: ['tool_command'],
  decode_and_obey: ['encoded'],
  hidden_order: ['encoded'],
  // Letters run together ("ignoreallpreviousinstructions"): read by a decoder, matched by a dismissal or a leak.
  run_together: ['encoded', 'ignore_previous', 'prompt_leak'],
  roleplay_jailbreak: ['persona_jailbreak'],
  developer_mode: ['persona_jailbreak'],
  persona_switch: ['persona_jailbreak'],
  verdict_override: ['latent_verdict'],
  reveal_prompt: ['prompt_leak'],
  // General: the text speaks to the AI, or keeps something from the user.
  addresses_the_model: [],
  order_to_reader: [],
  secrecy: [],
  learned_model: [],
});

/** Cue lexicons (instruction-cues.js CUE_LEXICONS) → the families they were written for; a lexicon not listed is general. */
export const LEXICON_FAMILIES = /** @type {const} */ ({
  DISMISS: ['ignore_previous'],
  TARGET: ['ignore_previous'],
  PRIOR: ['ignore_previous'],
  REVOKED: ['ignore_previous'],
  PRECEDENCE: ['ignore_previous'],
  DISMISS_THEN_TARGET: ['ignore_previous'],
  NEVERMIND: ['ignore_previous'],
  NEW_TASK: ['ignore_previous'],
  THAT_WAS: ['ignore_previous'],
  STOP_WHAT: ['ignore_previous'],
  STOP_TASK: ['ignore_previous'],
  DATA_TARGET: ['ignore_previous'],
  DATA_DISMISS: ['ignore_previous'],
  DISMISS_ML: ['ignore_previous', 'encoded'],
  TARGET_ML: ['ignore_previous', 'encoded'],
  PRIOR_ML: ['ignore_previous', 'encoded'],
  FORCE_ML: ['ignore_previous', 'encoded'],
  ROLE_LINE: ['forged_turns'],
  DATA_END: ['forged_turns'],
  FORGED_TAG: ['forged_turns'],
  HEADING_TURN: ['forged_turns'],
  IDENTITY_CLAIM: ['forged_turns'],
  AUTHORITY: ['forged_turns'],
  RELAYED_AUTHORITY: ['forged_turns'],
  ANSWER_REF: ['answer_manipulation'],
  PAYLOAD: ['answer_manipulation'],
  DICTATED: ['answer_manipulation'],
  ANSWER_VERB_ORDER: ['answer_manipulation'],
  STYLE: ['answer_manipulation'],
  TELL_USER_ORDER: ['answer_manipulation'],
  TELL_USER: ['answer_manipulation'],
  UNRELATED_TASK: ['answer_manipulation'],
  GENERATIVE_TASK: ['answer_manipulation'],
  STRONG_FORCE: ['answer_manipulation'],
  FORCED_OUTPUT: ['answer_manipulation'],
  ANSWER_ML: ['answer_manipulation', 'encoded'],
  TELL_USER_ML: ['answer_manipulation', 'encoded'],
  DICTATED_ML: ['answer_manipulation', 'encoded'],
  CONDITION: ['conditional_trigger'],
  DICTATE_VERB: ['conditional_trigger'],
  WHEN_WORKING: ['conditional_trigger'],
  OPEN_PARAM_URL: ['exfiltration'],
  LINK_WORD: ['exfiltration'],
  CONVERSATION_DATA: ['exfiltration'],
  PLACEHOLDER_URL: ['exfiltration'],
  VISIT_AND_REPORT: ['exfiltration'],
  SECRET_FILE: ['exfiltration'],
  EXFIL_VERB: ['exfiltration'],
  TOOL_CALL: ['tool_command'],
  TOOL_URGE: ['tool_command'],
  DANGEROUS_COMMAND: ['tool_command'],
  FAKE_CONSENT: ['tool_command'],
  TOOL_REF: ['tool_command'],
  HARM: ['tool_command'],
  STANDING: ['tool_command'],
  DRASTIC: ['tool_command'],
  ACT_FLOW: ['tool_command'],
  ANSWER_FLOW: ['tool_command'],
  URGENCY: ['tool_command'],
  DECODE_ML: ['encoded'],
  OBEY_ML: ['encoded'],
  JAILBREAK_PERSONA: ['persona_jailbreak'],
  JAILBREAK_MODE: ['persona_jailbreak'],
  ACTIVATED: ['persona_jailbreak'],
  SAFETY_TARGET: ['persona_jailbreak'],
  DISABLE: ['persona_jailbreak'],
  SAFETY_OFF: ['persona_jailbreak'],
  SESSION_SCOPE: ['persona_jailbreak'],
  ROLE: ['persona_jailbreak'],
  UNBOUND: ['persona_jailbreak'],
  TIME_SWITCH: ['persona_jailbreak'],
  BEHAVE: ['persona_jailbreak'],
  PERSONA: ['persona_jailbreak'],
  UNLOCKED: ['persona_jailbreak'],
  VERDICT_ORDER: ['latent_verdict'],
  JUDGEMENT: ['latent_verdict'],
  ANY_READER_MUST: ['latent_verdict'],
  AS_FACT: ['latent_verdict'],
  VOUCHED: ['latent_verdict'],
  SET_VERDICT: ['latent_verdict'],
  CORRECT_ANSWER: ['latent_verdict'],
  LEAK_VERB: ['prompt_leak'],
  LEAK_VERB_STRICT: ['prompt_leak'],
  LEAK_OBJ_YOURS: ['prompt_leak'],
  LEAK_OBJ_THE: ['prompt_leak'],
  LEAK_SECRET: ['prompt_leak'],
  LEAK_OBJ_ML: ['prompt_leak', 'encoded'],
  LEAK_VERB_ML: ['prompt_leak', 'encoded'],
});

/**
 * The rule names and lexicon names that belong to any of `families`.
 * @param {Iterable<string>} families
 * @returns {{rules: Set<string>, lexicons: Set<string>}}
 */
export function cuesOf(families) {
  const out = new Set(families);
  /** @param {Record<string, readonly string[]>} table */
  const owned = (table) =>
    new Set(
      Object.entries(table)
        .filter(([, fs]) => fs.some((f) => out.has(f)))
        .map(([name]) => name),
    );
  return { rules: owned(RULE_FAMILIES), lexicons: owned(LEXICON_FAMILIES) };
}
