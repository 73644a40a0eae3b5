//! The learning loop end to end, with a scripted model and no network: a
//! turn ends, the background review saves a preference (staged, since the
//! user asked to approve every save), the chat shows the notification line,
//! the user looks at the queue and approves.
//!
//! Usage: `cargo run --example review_loop`
use std::cell::RefCell;

use mnemo::approval::Which;
use mnemo::host::{Answer, Llm};
use mnemo::review::{Request, ReviewOptions};
use mnemo::{Config, Memory, MemoryStorage};
use serde_json::{json, Value};

/// A stand-in for the host's model: the first call saves a fact through the
/// memory tool, the second says it is done. A real host sends `request`
/// (OpenAI chat `messages` and `tools`) to its model and returns the
/// assistant message.
struct ScriptedModel {
    turns: RefCell<Vec<Value>>,
}

impl Llm for ScriptedModel {
    fn complete<'a>(&'a self, request: &'a Request) -> Answer<'a, Value> {
        println!(
            "→ model call: {} messages, tools: {}",
            request.messages.len(),
            request.tools[0]["function"]["name"]
        );
        let answer = self.turns.borrow_mut().remove(0);
        Box::pin(async move { Ok(answer) })
    }
}

fn main() -> Result<(), mnemo::Error> {
    pollster::block_on(async {
        let config = Config::from_json(&json!({
            "memory": {"write_approval": true},
            "display": {"memory_notifications": "verbose"}
        }))?;
        let mut memory = Memory::open(MemoryStorage::new(), config).await?;
        memory.set_agent(Some("example-agent"))?;

        let model = ScriptedModel {
            turns: RefCell::new(vec![
                json!({"content": null, "tool_calls": [{
                    "id": "call_1", "type": "function",
                    "function": {"name": "memory", "arguments": json!({
                        "action": "add", "target": "user",
                        "content": "Prefers TypeScript over JavaScript for new code"
                    }).to_string()}
                }], "usage": {"input_tokens": 812, "output_tokens": 41}}),
                json!({"content": "Saved the user's language preference.",
                       "usage": {"input_tokens": 901, "output_tokens": 9}}),
            ]),
        };
        let transcript = ReviewOptions {
            transcript: vec![
                json!({"role": "user", "content": "Please use TypeScript, I never want plain JS in new files."}),
                json!({"role": "assistant", "content": "Understood: new files will be TypeScript."}),
            ],
            same_model: false,
        };
        let report = memory.review(&transcript, &model, &|| false).await?;
        println!(
            "review stopped: {:?}, staged: {:?}",
            report.stopped, report.staged
        );
        println!("chat line: {}", report.notification.unwrap_or_default());
        println!(
            "usage: {} in, {} out over {} calls",
            report.usage.input_tokens, report.usage.output_tokens, report.usage.calls
        );

        for staged in memory.pending().await? {
            println!(
                "pending {} [{}] by {}: {}",
                staged.id,
                staged.origin.name(),
                staged.agent.as_deref().unwrap_or("-"),
                staged.summary
            );
        }
        let approved = memory.approve(&Which::All, None).await?;
        println!(
            "approved {:?}; chat line: {}",
            approved.applied,
            approved.notification.unwrap_or_default()
        );
        memory.start_session().await?;
        assert!(memory.system_prompt().contains("Prefers TypeScript"));
        println!("the next session's prompt holds the fact");
        Ok(())
    })
}
