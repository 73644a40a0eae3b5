// The background review's `llm` over Anthropic's Messages API: mnemo speaks
// the OpenAI chat format (`{messages, tools}` in, the assistant message
// `{content, tool_calls?, usage?}` out); this maps both ways. Pass any client
// with Anthropic's `messages.create(body, {signal})` (@anthropic-ai/sdk's
// `new Anthropic()`, or a scripted one as in review-agent.mjs).

/**
 * The review's `llm` over an Anthropic client (`client.messages.create`, as
 * in @anthropic-ai/sdk): OpenAI-style messages and tools in, the assistant
 * message out. `signal` (the review's) also aborts the HTTP request.
 */
export function anthropicLlm(client, model, { signal, maxTokens = 1024 } = {}) {
  return async ({ messages, tools }) => {
    const system = messages.filter((m) => m.role === "system").map((m) => textOf(m.content)).join("\n\n");
    const turns = [];
    const push = (role, blocks) => {
      if (blocks.length === 0) return; // Anthropic refuses empty turns and empty text
      const last = turns.at(-1);
      // Anthropic wants user and assistant turns to alternate: merge neighbours.
      if (last?.role === role) last.content.push(...blocks);
      else turns.push({ role, content: blocks });
    };
    const text = (t) => (t ? [{ type: "text", text: t }] : []);
    for (const m of messages) {
      if (m.role === "user") push("user", text(textOf(m.content)));
      if (m.role === "tool") push("user", [{ type: "tool_result", tool_use_id: m.tool_call_id, content: textOf(m.content) }]);
      if (m.role === "assistant") {
        const blocks = text(textOf(m.content));
        for (const call of m.tool_calls ?? []) {
          const args = call.function.arguments;
          const input = typeof args === "string" ? JSON.parse(args || "{}") : args;
          blocks.push({ type: "tool_use", id: call.id, name: call.function.name, input });
        }
        push("assistant", blocks);
      }
    }
    const response = await client.messages.create(
      {
        model,
        max_tokens: maxTokens,
        ...(system ? { system } : {}),
        messages: turns,
        tools: tools.map(({ function: f }) => ({ name: f.name, description: f.description, input_schema: f.parameters })),
      },
      { signal },
    );
    const reply = response.content.filter((b) => b.type === "text").map((b) => b.text).join("");
    const toolCalls = response.content
      .filter((b) => b.type === "tool_use")
      .map((b) => ({ id: b.id, type: "function", function: { name: b.name, arguments: JSON.stringify(b.input) } }));
    return {
      content: reply || null,
      tool_calls: toolCalls,
      usage: { input_tokens: response.usage.input_tokens, output_tokens: response.usage.output_tokens },
    };
  };
}

/** The text of an OpenAI message's content: a string, or parts with `text`. */
function textOf(content) {
  if (Array.isArray(content)) return content.map((p) => (typeof p === "string" ? p : p?.text ?? "")).join("\n");
  return content == null ? "" : String(content);
}
