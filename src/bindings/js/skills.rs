//! Learned skills on the JS `Memory`: the `skill` tool (`skillTool`,
//! `Memory.skillToolSchema`), the listing, usage and pins, the staged
//! skill writes (`pendingSkills`, `skillDiff`, `approveSkill`,
//! `rejectSkill`, `setSkillApproval`) and the archive (see
//! [`crate::skills`]).
//!
//! Like the rest of the binding, each method converts, calls the core and
//! converts. `skillTool` never rejects for what a model sent: like `tool()`,
//! a bad call is a `{success: false, error, code}` answer. This module must
//! never approve a staged skill write on its own: only the host's explicit
//! `approveSkill` call does.

use js_sys::Promise;
use serde_json::{json, Value};
use wasm_bindgen::prelude::*;

use super::approval::which_of;
use super::interop::{from_serde, to_json, to_string};
use super::{throw, with_open, JsMemory};
use crate::api::rule;
use crate::error::Error;

/// The most days `archiveStaleSkills` takes (a century, as the activity
/// log's retention).
const MAX_STALE_DAYS: u64 = 36_500;

/// A skill's name argument.
fn name_of(value: &JsValue) -> Result<String, Error> {
    to_string(value, "name").map_err(|e| {
        Error::new(
            e.kind(),
            format!(
                "{}: the skill's name, as skills() lists it (e.g. \"deploy-checklist\")",
                e.message()
            ),
        )
    })
}

/// The `pinned` argument of `pinSkill`: absent pins.
fn pinned_of(value: &JsValue) -> Result<bool, Error> {
    if value.is_undefined() {
        return Ok(true);
    }
    value
        .as_bool()
        .ok_or_else(|| Error::input("pinned must be true (pin) or false (unpin)"))
}

/// The `days` argument of `archiveStaleSkills`.
fn days_of(value: &JsValue) -> Result<u64, Error> {
    rule::int("days", &to_json(value)?, 1, MAX_STALE_DAYS)
}

#[wasm_bindgen(js_class = Memory)]
impl JsMemory {
    /// The `skill` tool's definition `{name, description, parameters}`.
    #[wasm_bindgen(js_name = skillToolSchema, unchecked_return_type = "SkillToolSchema")]
    pub fn skill_tool_schema() -> Result<JsValue, JsValue> {
        from_serde(&crate::skills::tool_schema())
    }

    /// Runs a `skill` tool call exactly as the LLM emitted it; never
    /// rejects because of what the model sent (`{success: false, error,
    /// code}`). A write may be staged for the user's approval (`staged`,
    /// `pending_id`) instead of applied.
    #[wasm_bindgen(js_name = skillTool, unchecked_return_type = "Promise<SkillToolResult>")]
    pub fn skill_tool(
        &self,
        #[wasm_bindgen(unchecked_param_type = "SkillToolArgs | unknown")] args: JsValue,
    ) -> Promise {
        let decoded = to_json(&args);
        with_open(&self.inner, async move |memory| {
            let result = match decoded {
                Ok(args) => memory.skill_tool(&args).await,
                Err(e) => unreadable(&e),
            };
            from_serde(&result)
        })
    }

    /// The skills, by category then name, with their usage counts (read
    /// again from storage). A skill the scanner blocks is listed with
    /// `blocked: true`, its description masked and no tags.
    #[wasm_bindgen(unchecked_return_type = "Promise<SkillInfo[]>")]
    pub fn skills(&self) -> Promise {
        with_open(&self.inner, async move |memory| {
            from_serde(&memory.skills().await.map_err(throw)?)
        })
    }

    /// Records that the agent used skill `name` (counted with the views
    /// buffered so far); `no-match` for an unknown skill.
    #[wasm_bindgen(js_name = skillUsed, unchecked_return_type = "Promise<void>")]
    pub fn skill_used(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] name: JsValue,
    ) -> Promise {
        let decoded = name_of(&name);
        with_open(&self.inner, async move |memory| {
            let name = decoded.map_err(throw)?;
            memory.skill_used(&name).await.map_err(throw)?;
            Ok(JsValue::UNDEFINED)
        })
    }

    /// The staged skill writes, oldest first (read again from storage):
    /// `[{id, created, agent?, origin, state, reason?, gist, plan}]`.
    #[wasm_bindgen(js_name = pendingSkills, unchecked_return_type = "Promise<StagedSkill[]>")]
    pub fn pending_skills(&self) -> Promise {
        with_open(&self.inner, async move |memory| {
            from_serde(&memory.pending_skills().await.map_err(throw)?)
        })
    }

    /// The full unified diff of staged skill write `id` (`"k1"`).
    #[wasm_bindgen(js_name = skillDiff, unchecked_return_type = "Promise<string>")]
    pub fn skill_diff(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] id: JsValue,
    ) -> Promise {
        let decoded = to_string(&id, "id");
        with_open(&self.inner, async move |memory| {
            let id = decoded.map_err(throw)?;
            Ok(memory.skill_diff(&id).await.map_err(throw)?.into())
        })
    }

    /// Applies staged skill write `id` (or `"all"`, oldest first), each
    /// checked again against the files as they are now; flagged text the
    /// user approves is shown from then on. A write whose files changed
    /// since it was staged stays as `needs_review`: `{applied,
    /// not_applied: [[id, reason]]}`.
    #[wasm_bindgen(js_name = approveSkill, unchecked_return_type = "Promise<SkillsApproved>")]
    pub fn approve_skill(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] id: JsValue,
    ) -> Promise {
        let decoded = which_of(&id, "\"k1\", see pendingSkills()");
        with_open(&self.inner, async move |memory| {
            let which = decoded.map_err(throw)?;
            from_serde(&memory.approve_skill(&which).await.map_err(throw)?)
        })
    }

    /// Drops staged skill write `id` (or `"all"`); resolves to the ids
    /// dropped.
    #[wasm_bindgen(js_name = rejectSkill, unchecked_return_type = "Promise<string[]>")]
    pub fn reject_skill(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] id: JsValue,
    ) -> Promise {
        let decoded = which_of(&id, "\"k1\", see pendingSkills()");
        with_open(&self.inner, async move |memory| {
            let which = decoded.map_err(throw)?;
            from_serde(&memory.reject_skill(&which).await.map_err(throw)?)
        })
    }

    /// Switches the staging of skill writes on or off for this memory,
    /// over the config's `skills.write_approval` until changed again (kept
    /// with the memory); resolves to whether it is on. Flagged writes are
    /// staged either way.
    #[wasm_bindgen(js_name = setSkillApproval, unchecked_return_type = "Promise<boolean>")]
    pub fn set_skill_approval(
        &self,
        #[wasm_bindgen(unchecked_param_type = "boolean")] on: JsValue,
    ) -> Promise {
        let decoded = on.as_bool().ok_or_else(|| {
            Error::input("setSkillApproval expects true (stage skill writes) or false")
        });
        with_open(&self.inner, async move |memory| {
            let on = decoded.map_err(throw)?;
            Ok(memory.set_skill_approval(on).await.map_err(throw)?.into())
        })
    }

    /// Archives skill `name` at once, the user's act (restorable with
    /// `restoreSkill`); resolves to what was done.
    #[wasm_bindgen(js_name = archiveSkill, unchecked_return_type = "Promise<string>")]
    pub fn archive_skill(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] name: JsValue,
    ) -> Promise {
        let decoded = name_of(&name);
        with_open(&self.inner, async move |memory| {
            let name = decoded.map_err(throw)?;
            Ok(memory.archive_skill(&name).await.map_err(throw)?.into())
        })
    }

    /// The archived skills, newest first: `[{name, category, archived}]`.
    #[wasm_bindgen(js_name = archivedSkills, unchecked_return_type = "Promise<ArchivedSkill[]>")]
    pub fn archived_skills(&self) -> Promise {
        with_open(&self.inner, async move |memory| {
            from_serde(&memory.archived_skills().await.map_err(throw)?)
        })
    }

    /// The earlier versions of skill `name`'s files that writes replaced
    /// or removed, newest first: `[{replaced, file, path, text}]`.
    #[wasm_bindgen(js_name = skillVersions, unchecked_return_type = "Promise<SkillVersion[]>")]
    pub fn skill_versions(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] name: JsValue,
    ) -> Promise {
        let decoded = name_of(&name);
        with_open(&self.inner, async move |memory| {
            let name = decoded.map_err(throw)?;
            from_serde(&memory.skill_versions(&name).await.map_err(throw)?)
        })
    }

    /// Brings back the newest archived copy of skill `name`; resolves to
    /// what was done.
    #[wasm_bindgen(js_name = restoreSkill, unchecked_return_type = "Promise<string>")]
    pub fn restore_skill(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] name: JsValue,
    ) -> Promise {
        let decoded = name_of(&name);
        with_open(&self.inner, async move |memory| {
            let name = decoded.map_err(throw)?;
            Ok(memory.restore_skill(&name).await.map_err(throw)?.into())
        })
    }

    /// Pins skill `name` (`pinned` absent or true) or unpins it: pinned
    /// skills are never archived as stale.
    #[wasm_bindgen(js_name = pinSkill, unchecked_return_type = "Promise<void>")]
    pub fn pin_skill(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] name: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "boolean")] pinned: JsValue,
    ) -> Promise {
        let decoded = name_of(&name).and_then(|n| Ok((n, pinned_of(&pinned)?)));
        with_open(&self.inner, async move |memory| {
            let (name, pinned) = decoded.map_err(throw)?;
            memory.pin_skill(&name, pinned).await.map_err(throw)?;
            Ok(JsValue::UNDEFINED)
        })
    }

    /// Archives every unpinned skill not used, viewed or changed in the
    /// last `days` days (1 to 36500; restorable, never deleted); resolves
    /// to their names.
    #[wasm_bindgen(js_name = archiveStaleSkills, unchecked_return_type = "Promise<string[]>")]
    pub fn archive_stale_skills(
        &self,
        #[wasm_bindgen(unchecked_param_type = "number")] days: JsValue,
    ) -> Promise {
        let decoded = days_of(&days);
        with_open(&self.inner, async move |memory| {
            let days = decoded.map_err(throw)?;
            from_serde(&memory.archive_stale_skills(days).await.map_err(throw)?)
        })
    }
}

/// What `skillTool` answers when the arguments cannot even be read as
/// JSON (a lone surrogate, a BigInt): the core's failure shape.
fn unreadable(e: &Error) -> Value {
    json!({"success": false, "error": e.message(), "code": e.kind()})
}
