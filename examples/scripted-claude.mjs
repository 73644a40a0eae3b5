// A stand-in for an Anthropic client (`new Anthropic()` from
// @anthropic-ai/sdk) that answers a review from a script, so the examples
// run with no network: review-agent.mjs, and the README's excerpt of it.

export const scriptedClaude = {
  step: 0,
  messages: {
    async create(body) {
      const step = scriptedClaude.step++;
      const usage = { input_tokens: JSON.stringify(body).length >> 2, output_tokens: 40 };
      if (step === 0) {
        return {
          content: [
            { type: "text", text: "Two things are worth keeping." },
            { type: "tool_use", id: "toolu_1", name: "memory", input: { action: "add", target: "user", content: "Prefers TypeScript over JavaScript" } },
            { type: "tool_use", id: "toolu_2", name: "memory", input: { action: "add", target: "memory", content: "Project deploys with `fly deploy` from main" } },
          ],
          usage,
        };
      }
      return { content: [{ type: "text", text: "Saved the language preference and the deploy command." }], usage };
    },
  },
};
