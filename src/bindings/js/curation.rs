//! The activity log and curation on the JS `Memory`: `log`, `readLog`,
//! `logDays`, `curate`, `stop` and `curationPosition` (see
//! [`crate::activity`] and [`crate::curate`]).
//!
//! Like the rest of the binding, each method converts, calls the core and
//! converts. The host's `llm` is the review's [`JsLlm`] (the same function
//! shape, raced against the call's `AbortSignal`); an `embedder` given to
//! `curate` is lent to the memory for that call only, and the one given to
//! `Memory.open` (or none) is lent again afterwards, whatever happened.
//! This module must never decide what a fact is, whether it is new or what
//! is pruned: the core does.

use js_sys::{Function, Object, Promise, Reflect};
use wasm_bindgen::prelude::*;

use super::approval::{aborted, is_signal, JsLlm};
use super::entries::{embedder_from, JsEmbedder};
use super::interop::{from_serde, to_string};
use super::{throw, with_open, JsMemory};
use crate::error::{Error, ErrorKind};

/// The keys of `curate`'s options.
const CURATE_KEYS: [&str; 4] = ["llm", "embedder", "dryRun", "signal"];

/// An options object's own keys, checked against `allowed`: `None` for
/// `undefined` or `null`; `invalid-input` for something that is not an
/// object or has other keys (read without JSON, since the values are
/// functions and signals).
fn option_object(value: &JsValue, what: &str, allowed: &[&str]) -> Result<Option<()>, Error> {
    if value.is_undefined() || value.is_null() {
        return Ok(None);
    }
    if !value.is_object() || value.is_function() || js_sys::Array::is_array(value) {
        return Err(Error::input(format!(
            "{what} must be an object with {}",
            allowed.join(", ")
        )));
    }
    let keys: Vec<String> = Object::keys(value.unchecked_ref::<Object>())
        .iter()
        .filter_map(|k| k.as_string())
        .collect();
    crate::api::only_known(what, keys.iter().map(String::as_str), allowed)?;
    Ok(Some(()))
}

/// Property `key` of `value`, `undefined` when absent.
fn get(value: &JsValue, key: &str) -> JsValue {
    Reflect::get(value, &key.into()).unwrap_or(JsValue::UNDEFINED)
}

/// An optional `llm`: a function, or absent.
fn llm_of(value: JsValue) -> Result<Option<Function>, Error> {
    if value.is_undefined() || value.is_null() {
        return Ok(None);
    }
    value.dyn_into::<Function>().map(Some).map_err(|_| {
        Error::input(
            "llm must be a function: async ({messages, tools}) => ({content, usage?}), the \
             assistant message in the OpenAI chat format (or a chat-completions response)",
        )
    })
}

/// What `curate` was asked: the host's llm, an embedder for this call, a
/// dry run, and the signal.
struct CurateOptions {
    llm: Option<Function>,
    embedder: Option<JsEmbedder>,
    dry_run: bool,
    signal: Option<JsValue>,
}

/// The options of `curate`: `{llm?, embedder?, dryRun?, signal?}`.
fn curate_options(value: &JsValue) -> Result<CurateOptions, Error> {
    let mut options = CurateOptions {
        llm: None,
        embedder: None,
        dry_run: false,
        signal: None,
    };
    if option_object(value, "curate options", &CURATE_KEYS)?.is_none() {
        return Ok(options);
    }
    options.llm = llm_of(get(value, "llm"))?;
    options.embedder = embedder_from(get(value, "embedder"), ErrorKind::InvalidInput)?;
    options.dry_run = match get(value, "dryRun") {
        v if v.is_undefined() || v.is_null() => false,
        v => v
            .as_bool()
            .ok_or_else(|| Error::input("dryRun must be true or false"))?,
    };
    options.signal = match get(value, "signal") {
        v if v.is_undefined() || v.is_null() => None,
        v if is_signal(&v) => Some(v),
        _ => return Err(Error::input("signal must be an AbortSignal")),
    };
    // An embedder lent for this call answers within its signal too.
    let signal: super::CallSignal =
        std::rc::Rc::new(std::cell::RefCell::new(options.signal.clone()));
    options.embedder = options.embedder.map(|e| e.racing(&signal));
    Ok(options)
}

/// The options of `stop`: `{llm?}`.
fn stop_options(value: &JsValue) -> Result<Option<Function>, Error> {
    match option_object(value, "stop options", &["llm"])? {
        None => Ok(None),
        Some(()) => llm_of(get(value, "llm")),
    }
}

/// The options of `log`: `{agent?}`.
fn log_options(value: &JsValue) -> Result<Option<String>, Error> {
    if option_object(value, "log options", &["agent"])?.is_none() {
        return Ok(None);
    }
    match get(value, "agent") {
        v if v.is_undefined() || v.is_null() => Ok(None),
        v => to_string(&v, "agent").map(Some),
    }
}

/// The host's `llm` as the core's, for `what` (`curation`).
fn host_llm(function: Option<Function>, signal: Option<JsValue>) -> Option<JsLlm> {
    function.map(|function| JsLlm {
        function,
        signal,
        what: "curation",
    })
}

#[wasm_bindgen(js_class = Memory)]
impl JsMemory {
    /// Appends a note to today's activity log (for the curator and for
    /// people), by `{agent}` or else the agent the memory was opened with.
    /// Text the scanner blocks is logged as its placeholder. Resolves to
    /// the record as written: `{date, time, agent?, what: "note", text}`.
    #[wasm_bindgen(unchecked_return_type = "Promise<ActivityRecord>")]
    pub fn log(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] note: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "LogOptions")] options: JsValue,
    ) -> Promise {
        let decoded = to_string(&note, "note").and_then(|n| Ok((n, log_options(&options)?)));
        with_open(&self.inner, async move |memory| {
            let (note, agent) = decoded.map_err(throw)?;
            from_serde(&memory.log(&note, agent.as_deref()).await.map_err(throw)?)
        })
    }

    /// The records of day `date` (`"YYYY-MM-DD"`, UTC; today when absent),
    /// oldest first: every write, recorded turn, note and curation, each
    /// with its agent. `[]` for a day without a log.
    #[wasm_bindgen(js_name = readLog, unchecked_return_type = "Promise<ActivityRecord[]>")]
    pub fn read_log(
        &self,
        #[wasm_bindgen(unchecked_optional_param_type = "string")] date: JsValue,
    ) -> Promise {
        let decoded = if date.is_undefined() || date.is_null() {
            Ok(None)
        } else {
            to_string(&date, "date").map(Some)
        };
        with_open(&self.inner, async move |memory| {
            let date = decoded.map_err(throw)?;
            from_serde(&memory.read_log(date.as_deref()).await.map_err(throw)?)
        })
    }

    /// The days that have an activity log (`"YYYY-MM-DD"`), oldest first.
    #[wasm_bindgen(js_name = logDays, unchecked_return_type = "Promise<string[]>")]
    pub fn log_days(&self) -> Promise {
        with_open(&self.inner, async move |memory| {
            from_serde(&memory.log_days().await.map_err(throw)?)
        })
    }

    /// Curates the memory: the activity log since the last curation goes
    /// to the host's `llm`, which extracts durable facts; each is stored
    /// as new, skipped as a duplicate, or (in the gray zone, asked again)
    /// supersedes a similar entry or is kept beside it, every write checked
    /// like any other and staged under write approval; then the stores are
    /// grouped by category, stale entries pruned into the history and old
    /// day logs deleted. Without `llm` the extraction is skipped (the log
    /// stays unread) and the rest runs. `embedder` is lent for this call
    /// only; `dryRun` writes nothing; `signal` cancels between steps and
    /// interrupts an `llm` that has not answered. The model's failures are
    /// in the report, never thrown. Other calls wait until it ends.
    #[wasm_bindgen(unchecked_return_type = "Promise<CurationReport>")]
    pub fn curate(
        &self,
        #[wasm_bindgen(unchecked_optional_param_type = "CurateOptions")] options: JsValue,
    ) -> Promise {
        let decoded = curate_options(&options);
        with_open(&self.inner, async move |memory| {
            let options = decoded.map_err(throw)?;
            // The open's embedder (or none) is handed back to put back.
            let previous = match options.embedder {
                Some(embedder) => Some(
                    memory
                        .replace_embedder(Some(Box::new(embedder)))
                        .map_err(|e| throw(Error::input(e.message())))?,
                ),
                None => None,
            };
            let signal = options.signal;
            let cancelled = || signal.as_ref().is_some_and(aborted);
            let llm = host_llm(options.llm, signal.clone());
            let report = memory
                .curate(
                    llm.as_ref().map(|l| l as &dyn crate::host::Llm),
                    options.dry_run,
                    &cancelled,
                )
                .await;
            if let Some(previous) = previous {
                // Even after a failure; it was accepted once, so this
                // cannot fail.
                let _ = memory.replace_embedder(previous);
            }
            from_serde(&report.map_err(throw)?)
        })
    }

    /// Ends the agent's run: pending access counts are written and, when
    /// the config's `curation.auto` is `"on_stop"`, the memory is curated
    /// with the host's `llm` (as `curate({llm})`). Resolves to the
    /// curation's report, or `null` when curation is manual. The memory
    /// stays open.
    #[wasm_bindgen(unchecked_return_type = "Promise<CurationReport | null>")]
    pub fn stop(
        &self,
        #[wasm_bindgen(unchecked_optional_param_type = "StopOptions")] options: JsValue,
    ) -> Promise {
        let decoded = stop_options(&options);
        with_open(&self.inner, async move |memory| {
            let llm = host_llm(decoded.map_err(throw)?, None);
            let report = memory
                .stop(llm.as_ref().map(|l| l as &dyn crate::host::Llm))
                .await;
            match report.map_err(throw)? {
                Some(report) => from_serde(&report),
                None => Ok(JsValue::NULL),
            }
        })
    }

    /// Where curation will read the log from: `{version, date?, records,
    /// last_run?}` (the last day read, how many of its records were read,
    /// when a curation last finished).
    #[wasm_bindgen(js_name = curationPosition, unchecked_return_type = "Promise<CurationPosition>")]
    pub fn curation_position(&self) -> Promise {
        with_open(&self.inner, async move |memory| {
            from_serde(&memory.curation_position().await.map_err(throw)?)
        })
    }
}
