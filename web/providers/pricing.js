/**
 * Approximate list prices in USD per million tokens, matched by model-id prefix (longest
 * first). Used for the daily cost limit; unknown models cost 0 (local models are free).
 * @type {[prefix: string, input: number, output: number][]}
 */
export const MODEL_PRICING = [
  ['gpt-4.1-nano', 0.1, 0.4], ['gpt-4.1-mini', 0.4, 1.6], ['gpt-4.1', 2, 8],
  ['gpt-4o-mini', 0.15, 0.6], ['gpt-4o', 2.5, 10], ['o4-mini', 1.1, 4.4], ['o3', 2, 8], ['gpt-5-mini', 0.25, 2], ['gpt-5', 1.25, 10],
  ['claude-opus-4', 15, 75], ['claude-sonnet-4', 3, 15], ['claude-haiku-4', 1, 5], ['claude-3-5-haiku', 0.8, 4], ['claude-3-7-sonnet', 3, 15],
  ['llama-3.3-70b', 0.59, 0.79], ['llama-3.1-8b', 0.05, 0.08], ['deepseek-chat', 0.27, 1.1], ['deepseek-reasoner', 0.55, 2.19],
  ['mistral-small', 0.1, 0.3], ['mistral-large', 2, 6], ['grok-3-mini', 0.3, 0.5], ['grok-4', 3, 15], ['sonar-pro', 3, 15], ['sonar', 1, 1],
];

/**
 * @param {string} model
 * @param {{inputTokens: number, outputTokens: number}} usage
 * @returns {number} cents
 */
export function estimateCostCents(model, usage) {
  const id = model.toLowerCase().split('/').pop() ?? '';
  const match = [...MODEL_PRICING].sort((a, b) => b[0].length - a[0].length).find(([prefix]) => id.startsWith(prefix));
  if (!match) return 0;
  return ((usage.inputTokens * match[1] + usage.outputTokens * match[2]) / 1_000_000) * 100;
}
