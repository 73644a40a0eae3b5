//! Write approval and the background review on the JS `Memory`: `pending`,
//! `approve`, `reject`, `setApproval`, `pendingCount` and `review` (see
//! [`crate::approval`] and [`crate::review`]).
//!
//! Like the rest of the binding, each method converts, calls the core and
//! converts. The one piece of machinery is [`JsLlm`]: the host's `llm`
//! function as the core's [`Llm`], raced against the review's
//! `AbortSignal` so that a cancel never waits for a model that hangs. This
//! module must never approve anything on its own: only the host's explicit
//! `approve` call does.

use js_sys::{Array, Function, Promise, Reflect};
use serde_json::Value;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use super::interop::{from_serde, to_json, to_string};
use super::{closed, throw, with_open, JsMemory};
use crate::approval::Which;
use crate::error::{Error, ErrorKind};
use crate::host::{Answer, Llm};
use crate::review::{Request, ReviewOptions};
use crate::storage::adapter::message_of;

/// What `approve` and `reject` are about: an id (`"p3"`, or `"3"`) or
/// `"all"`.
fn which(value: &JsValue) -> Result<Which, Error> {
    which_of(value, "\"p3\", see pending()")
}

/// An id or `"all"`, for the approvals of notes and of skills; `example`
/// says what an id looks like and where the ids are listed.
pub(super) fn which_of(value: &JsValue, example: &str) -> Result<Which, Error> {
    let text = to_string(value, "id").map_err(|e| match e.kind() {
        ErrorKind::InvalidText => e,
        _ => Error::input(format!(
            "expected the id of a staged write (a string like {example}) or \"all\""
        )),
    })?;
    Which::parse(&text)
}

/// The options of `approve`: `{content?}`, the edited text.
fn approve_content(options: &JsValue) -> Result<Option<String>, Error> {
    if options.is_undefined() || options.is_null() {
        return Ok(None);
    }
    let Value::Object(map) = to_json(options)? else {
        return Err(Error::input(
            "approve options must be an object like {content: \"the edited text\"}",
        ));
    };
    if let Some(key) = map.keys().find(|k| *k != "content") {
        return Err(Error::input(format!(
            "unknown approve option {key:?}; expected only content (the edited text)"
        )));
    }
    match map.get("content") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) => Ok(Some(text.clone())),
        Some(_) => Err(Error::input(
            "content must be a string: the edited text of one staged add or replace",
        )),
    }
}

/// The options of `review`: the core's part, the host's `llm` and the
/// `signal`.
fn review_options(options: &JsValue) -> Result<(ReviewOptions, Function, Option<JsValue>), Error> {
    if !options.is_object() {
        return Err(Error::input(
            "review expects options like {transcript: [{role, content}, …], llm: async \
             ({messages, tools}) => ({content, tool_calls?}), sameModel?, signal?}",
        ));
    }
    let get = |key: &str| Reflect::get(options, &key.into()).unwrap_or(JsValue::UNDEFINED);
    let llm = get("llm").dyn_into::<Function>().map_err(|_| {
        Error::input(
            "llm must be a function: async ({messages, tools}) => ({content, tool_calls?, \
             usage?}), the assistant message in the OpenAI chat format",
        )
    })?;
    let signal = match get("signal") {
        v if v.is_undefined() || v.is_null() => None,
        v if is_signal(&v) => Some(v),
        _ => return Err(Error::input("signal must be an AbortSignal")),
    };
    let mut json = to_json(options)?;
    if let Value::Object(map) = &mut json {
        map.remove("llm");
        map.remove("signal");
    }
    Ok((ReviewOptions::from_json(&json)?, llm, signal))
}

/// Whether `value` looks like an `AbortSignal` (`aborted` and
/// `addEventListener`).
pub(super) fn is_signal(value: &JsValue) -> bool {
    value.is_object()
        && Reflect::has(value, &"aborted".into()).unwrap_or(false)
        && Reflect::get(value, &"addEventListener".into()).is_ok_and(|f| f.is_function())
}

/// Whether `signal` has aborted.
pub(super) fn aborted(signal: &JsValue) -> bool {
    Reflect::get(signal, &"aborted".into()).is_ok_and(|v| v.is_truthy())
}

/// `promise`, unless `signal` aborts first: then a rejection saying that
/// `what` (the review, the curation) was cancelled. The listener is
/// removed once either settles, so nothing outlives the call.
pub(super) async fn until_aborted(
    promise: Promise,
    signal: &JsValue,
    what: &'static str,
) -> Result<JsValue, JsValue> {
    until_aborted_by(promise, signal, what, "llm").await
}

/// [`until_aborted`] for the host's callback `who` (`llm`, `embed`,
/// `classifier`).
pub(super) async fn until_aborted_by(
    promise: Promise,
    signal: &JsValue,
    what: &'static str,
    who: &'static str,
) -> Result<JsValue, JsValue> {
    let cancelled = move || -> JsValue {
        js_sys::Error::new(&format!(
            "the {what} was cancelled while the host's {who} was answering"
        ))
        .into()
    };
    if aborted(signal) {
        return Err(cancelled());
    }
    let mut reject = None;
    let abort = Promise::new(&mut |_, r| reject = Some(r));
    let Some(reject) = reject else {
        return JsFuture::from(promise).await;
    };
    let on_abort = Closure::<dyn FnMut(JsValue)>::new(move |_: JsValue| {
        let _ = reject.call1(&JsValue::NULL, &cancelled());
    });
    let listen = |method: &str| {
        if let Ok(f) = Reflect::get(signal, &method.into()) {
            if let Some(f) = f.dyn_ref::<Function>() {
                let _ = f.call2(signal, &"abort".into(), on_abort.as_ref());
            }
        }
    };
    listen("addEventListener");
    let raced = JsFuture::from(Promise::race(&Array::of2(&promise, &abort))).await;
    listen("removeEventListener");
    raced
}

/// The host's `llm` given to `review`, `curate` or `stop`: called with the
/// request as a plain object `{messages, tools}`; its answer (or the
/// Promise's) is read as JSON by the core. A throw, a rejection or an
/// abort is an error, which the core reports (the review stops, the
/// curation's extraction fails and leaves the log unread).
pub(super) struct JsLlm {
    pub(super) function: Function,
    pub(super) signal: Option<JsValue>,
    /// What calls it, for the abort's message: `review`, `curation`.
    pub(super) what: &'static str,
}

impl Llm for JsLlm {
    fn complete<'a>(&'a self, request: &'a Request) -> Answer<'a, Value> {
        Box::pin(async move {
            let failed = |e: &JsValue| {
                Error::new(
                    ErrorKind::Internal,
                    format!("the host's llm failed: {}", message_of(e)),
                )
            };
            let request = from_serde(request).map_err(|e| failed(&e))?;
            let answer = self
                .function
                .call1(&JsValue::NULL, &request)
                .map_err(|e| failed(&e))?;
            let answer = Promise::resolve(&answer);
            let answer = match &self.signal {
                Some(signal) => until_aborted(answer, signal, self.what).await,
                None => JsFuture::from(answer).await,
            }
            .map_err(|e| failed(&e))?;
            to_json(&answer).map_err(|e| {
                Error::input(format!(
                    "the host's llm answered something that is not JSON: {}",
                    e.message()
                ))
            })
        })
    }
}

#[wasm_bindgen(js_class = Memory)]
impl JsMemory {
    /// The staged writes waiting for the user's approval, oldest first
    /// (read again from storage): `[{id, origin, agent?, created, summary,
    /// operations, batch?, state, reason?}]`.
    #[wasm_bindgen(unchecked_return_type = "Promise<StagedWrite[]>")]
    pub fn pending(&self) -> Promise {
        with_open(&self.inner, async move |memory| {
            from_serde(&memory.pending().await.map_err(throw)?)
        })
    }

    /// Applies the staged write `id` (or `"all"`, oldest first), each
    /// checked again against the stores as they are now; `{content}` edits
    /// one staged add or replace before applying it. A write that no
    /// longer applies stays pending as `needs_review` and is listed in
    /// `failed`: `{applied, failed: [{id, reason, code}], messages,
    /// notification?, pending}`.
    #[wasm_bindgen(unchecked_return_type = "Promise<ApproveResult>")]
    pub fn approve(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] id: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "ApproveOptions")] options: JsValue,
    ) -> Promise {
        let decoded = which(&id).and_then(|w| Ok((w, approve_content(&options)?)));
        with_open(&self.inner, async move |memory| {
            let (which, content) = decoded.map_err(throw)?;
            let report = memory.approve(&which, content.as_deref()).await;
            from_serde(&report.map_err(throw)?)
        })
    }

    /// Drops the staged write `id` (or `"all"`); their texts go to the
    /// history (cause `rejected`): `{rejected, pending}`.
    #[wasm_bindgen(unchecked_return_type = "Promise<RejectResult>")]
    pub fn reject(&self, #[wasm_bindgen(unchecked_param_type = "string")] id: JsValue) -> Promise {
        let decoded = which(&id);
        with_open(&self.inner, async move |memory| {
            let which = decoded.map_err(throw)?;
            from_serde(&memory.reject(&which).await.map_err(throw)?)
        })
    }

    /// Switches write approval on or off for this memory, overriding the
    /// config's `write_approval` until changed again (kept with the
    /// memory); resolves to the approval status.
    #[wasm_bindgen(js_name = setApproval, unchecked_return_type = "Promise<ApprovalStatus>")]
    pub fn set_approval(
        &self,
        #[wasm_bindgen(unchecked_param_type = "boolean")] on: JsValue,
    ) -> Promise {
        let decoded = on
            .as_bool()
            .ok_or_else(|| Error::input("setApproval expects true (stage writes) or false"));
        with_open(&self.inner, async move |memory| {
            let on = decoded.map_err(throw)?;
            from_serde(&memory.set_approval(on).await.map_err(throw)?)
        })
    }

    /// How many staged writes wait (synchronous, for badges): as of the
    /// last call on this memory; `pending()` and `status()` read storage
    /// again. Throws `closed` after `close()`.
    #[wasm_bindgen(js_name = pendingCount)]
    pub fn pending_count(&self) -> Result<u32, JsValue> {
        let count = match self.inner.memory.try_lock() {
            Some(guard) => {
                let memory = guard.as_ref().ok_or_else(closed)?;
                let n = memory.approval_status().pending;
                self.inner.pending.set(n);
                n
            }
            // A call (a review) holds the memory: the count after the last one.
            None => self.inner.pending.get(),
        };
        Ok(u32::try_from(count).unwrap_or(u32::MAX))
    }

    /// Runs the background review of `transcript` with the host's `llm`:
    /// the model's memory tool calls are applied as writes of origin
    /// `review` (staged when approval is on). `sameModel: false` sends a
    /// digest instead of the whole transcript; `signal` cancels between
    /// steps and interrupts a model that has not answered. Resolves to
    /// `{actions, staged, notification?, usage, stopped, error?, message?,
    /// digest}`; the model's failures are in it, never thrown. Other calls
    /// on this memory wait until the review ends.
    #[wasm_bindgen(unchecked_return_type = "Promise<ReviewReport>")]
    pub fn review(
        &self,
        #[wasm_bindgen(unchecked_param_type = "ReviewOptions")] options: JsValue,
    ) -> Promise {
        let decoded = review_options(&options);
        with_open(&self.inner, async move |memory| {
            let (options, function, signal) = decoded.map_err(throw)?;
            let cancelled = || signal.as_ref().is_some_and(aborted);
            let llm = JsLlm {
                function,
                signal: signal.clone(),
                what: "review",
            };
            let report = memory.review(&options, &llm, &cancelled).await;
            from_serde(&report.map_err(throw)?)
        })
    }
}
