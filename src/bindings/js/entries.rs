//! Entry metadata on the JS `Memory`: `recall`, `inject`, `markImportant`,
//! `pin`, `forget`, `updateMemory`, `restore`, `purgeHistory`, and the
//! host's `embedder` given to `Memory.open` (see [`crate::memory`]'s
//! entries and [`crate::vectors`]).
//!
//! Like the rest of the binding, each method converts, calls the core and
//! converts. The one piece of machinery is [`JsEmbedder`]: the host's
//! `embed` function as the core's [`Embedder`]. This module must never
//! decide a score, a default or a match of its own: the core does.

use js_sys::{Array, Float32Array, Function, Object, Promise, Reflect};
use serde_json::Value;
use wasm_bindgen::prelude::*;

use super::interop::{from_serde, to_json, to_string};
use super::{throw, with_open, JsMemory};
use crate::api::{fields, rule, RecallOptions};
use crate::error::{Error, ErrorKind};
use crate::host::{Answer, Embedder};
use crate::storage::adapter::message_of;
use crate::store::Target;

/// The keys of the `embedder` option.
const EMBEDDER_KEYS: [&str; 3] = ["model", "dimensions", "embed"];

/// The host's embedding model given to `Memory.open` as `embedder: {model,
/// dimensions, embed: async (texts) => vectors}`. Each vector may be a
/// `Float32Array` (or any typed array) or an array of numbers; anything
/// else is an error, which makes that recall keyword-only (the core says
/// so in `skipped`).
pub(super) struct JsEmbedder {
    model: String,
    dimensions: usize,
    embed: Function,
    /// Raced against: the signal of the call that asks for vectors.
    signal: super::CallSignal,
}

impl JsEmbedder {
    /// This embedder, its answers raced against `signal`.
    pub(super) fn racing(mut self, signal: &super::CallSignal) -> JsEmbedder {
        self.signal = signal.clone();
        self
    }
}

impl Embedder for JsEmbedder {
    fn model(&self) -> &str {
        &self.model
    }

    fn dimensions(&self) -> usize {
        self.dimensions
    }

    fn embed<'a>(&'a self, texts: &'a [String]) -> Answer<'a, Vec<Vec<f32>>> {
        Box::pin(async move {
            let failed = |e: &JsValue| Error::new(ErrorKind::Internal, message_of(e));
            let list: Array = texts.iter().map(|t| JsValue::from_str(t)).collect();
            let answer = self
                .embed
                .call1(&JsValue::NULL, &list)
                .map_err(|e| failed(&e))?;
            let answer = super::host_answer(Promise::resolve(&answer), &self.signal, "embed")
                .await
                .map_err(|e| failed(&e))?;
            vectors(&answer)
        })
    }
}

/// What `embed` answered, read strictly: an array of vectors.
fn vectors(answer: &JsValue) -> Result<Vec<Vec<f32>>, Error> {
    let nonsense = |what: &str| {
        Error::input(format!(
            "it answered {what}; expected an array of vectors (Float32Array or number[]), one \
             per text"
        ))
    };
    let array = answer
        .dyn_ref::<Array>()
        .ok_or_else(|| nonsense("something that is not an array"))?;
    let mut out = Vec::with_capacity(array.length() as usize);
    for item in array.iter() {
        if let Some(f32s) = item.dyn_ref::<Float32Array>() {
            out.push(f32s.to_vec());
        } else if let Some(numbers) = item.dyn_ref::<Array>() {
            let mut v = Vec::with_capacity(numbers.length() as usize);
            for n in numbers.iter() {
                #[allow(clippy::cast_possible_truncation)]
                v.push(
                    n.as_f64()
                        .ok_or_else(|| nonsense("a vector holding a non-number"))?
                        as f32,
                );
            }
            out.push(v);
        } else if js_sys::ArrayBuffer::is_view(&item) && !item.is_instance_of::<js_sys::DataView>()
        {
            // Float64Array and the other typed arrays: their numbers.
            let numbers = Array::from(&item);
            #[allow(clippy::cast_possible_truncation)]
            out.push(
                numbers
                    .iter()
                    .map(|n| n.as_f64().unwrap_or(f64::NAN) as f32)
                    .collect(),
            );
        } else {
            return Err(nonsense(
                "a vector that is neither a Float32Array nor an array of numbers",
            ));
        }
    }
    Ok(out)
}

/// The `embedder` option of `Memory.open`, when given, checked for shape:
/// `invalid-config` on a bad one.
pub(super) fn embedder_option(opts: &JsValue) -> Result<Option<JsEmbedder>, Error> {
    if !opts.is_object() {
        return Ok(None);
    }
    let value = Reflect::get(opts, &"embedder".into()).unwrap_or(JsValue::UNDEFINED);
    embedder_from(value, ErrorKind::InvalidConfig)
}

/// An embedder `{model, dimensions, embed}` (none for `undefined` or
/// `null`), checked for shape: an error of `kind` on a bad one.
pub(super) fn embedder_from(value: JsValue, kind: ErrorKind) -> Result<Option<JsEmbedder>, Error> {
    if value.is_undefined() || value.is_null() {
        return Ok(None);
    }
    let bad = |why: &str| {
        Error::new(
            kind,
            format!(
                "embedder {why}; expected {{model: string, dimensions: number, embed: async \
                 (texts) => Float32Array[] | number[][]}}"
            ),
        )
    };
    if !value.is_object() || value.is_function() {
        return Err(bad("must be an object"));
    }
    let keys: Vec<String> = Object::keys(value.unchecked_ref::<Object>())
        .iter()
        .filter_map(|k| k.as_string())
        .collect();
    if let Some(key) = keys.iter().find(|k| !EMBEDDER_KEYS.contains(&k.as_str())) {
        return Err(bad(&format!("has an unknown key {key:?}")));
    }
    let get = |key: &str| Reflect::get(&value, &key.into()).unwrap_or(JsValue::UNDEFINED);
    let model = match get("model").as_string() {
        Some(m) if !m.trim().is_empty() && m.chars().count() <= 200 => m,
        _ => return Err(bad("needs model: the model's name (1 to 200 chars)")),
    };
    let dimensions = match get("dimensions").as_f64() {
        Some(d) if d.fract() == 0.0 && (1.0..=65_536.0).contains(&d) => {
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            let d = d as usize;
            d
        }
        _ => return Err(bad("needs dimensions: an integer from 1 to 65536")),
    };
    let embed = get("embed")
        .dyn_into::<Function>()
        .map_err(|_| bad("needs embed: a function"))?;
    Ok(Some(JsEmbedder {
        model,
        dimensions,
        embed,
        signal: super::CallSignal::default(),
    }))
}

/// An options object's fields, read as JSON (unknown keys are
/// `invalid-input` naming the accepted ones).
fn options(value: &JsValue, what: &str, allowed: &[&str]) -> Result<Vec<(String, Value)>, Error> {
    fields(&to_json(value)?, what, allowed)
}

/// The options `{all?, target?}` (`all` only where `with_all`).
fn select_options(
    value: &JsValue,
    what: &str,
    with_all: bool,
) -> Result<(bool, Option<Target>), Error> {
    let allowed: &[&str] = if with_all {
        &["all", "target"]
    } else {
        &["target"]
    };
    let (mut all, mut target) = (false, None);
    for (key, v) in options(value, what, allowed)? {
        match key.as_str() {
            "all" => all = rule::boolean("all", &v)?,
            _ => target = Some(rule::target(&v)?),
        }
    }
    Ok((all, target))
}

/// What `recall` resolves to: the results as an array that also carries
/// `mode` and (when the embedder was not used) `skipped`.
fn recalled(recalled: &crate::memory::Recalled) -> Result<JsValue, JsValue> {
    let array = from_serde(&recalled.results)?;
    Reflect::set(&array, &"mode".into(), &recalled.mode.into())?;
    if let Some(why) = &recalled.skipped {
        Reflect::set(&array, &"skipped".into(), &why.into())?;
    }
    Ok(array)
}

#[wasm_bindgen(js_class = Memory)]
impl JsMemory {
    /// The entries most relevant to `query` by the adjusted score
    /// (relevance + importance boost, times the age decay; hybrid with the
    /// host's embedder), best first: `[{id, target, index, content,
    /// relevance, importance, category, created, pinned, explain?}]`; the
    /// array also has `mode` (`"keyword"` or `"hybrid"`) and `skipped`
    /// (why the embedder was not used, when it failed). Options: `{target?,
    /// limit?, scoreThreshold?, minImportance?, maxImportance?, category?,
    /// explain?}`.
    #[wasm_bindgen(unchecked_return_type = "Promise<Recalled>")]
    pub fn recall(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] query: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "RecallOptions & CallOptions")]
        options: JsValue,
    ) -> Promise {
        let (options, signal) = match super::split_signal(&options) {
            Ok(split) => split,
            Err(e) => return Promise::reject(&throw(e)),
        };
        let decoded = to_string(&query, "query")
            .and_then(|q| Ok((q, RecallOptions::from_json(&to_json(&options)?)?)));
        super::with_signal(&self.inner, signal, async move |memory| {
            let (query, options) = decoded.map_err(throw)?;
            recalled(&memory.recall(&query, &options).await.map_err(throw)?)
        })
    }

    /// The spec's automatic injection for the user's `prompt`: a `##
    /// Relevant Memory` block of `- [category] text (importance: 0.9)`
    /// lines, or the most important entries when nothing matches (a generic
    /// prompt); `""` for an empty memory.
    #[wasm_bindgen(unchecked_return_type = "Promise<string>")]
    pub fn inject(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] prompt: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "CallOptions")] options: JsValue,
    ) -> Promise {
        let signal = match super::signal_only(&options, "inject options") {
            Ok(signal) => signal,
            Err(e) => return Promise::reject(&throw(e)),
        };
        let decoded = to_string(&prompt, "prompt");
        super::with_signal(&self.inner, signal, async move |memory| {
            let prompt = decoded.map_err(throw)?;
            Ok(memory.inject(&prompt).await.into())
        })
    }

    /// Sets the importance (0 to 1) of the entry `query` selects (a
    /// substring of it, as `old_text`); with `{all: true}` of every entry
    /// containing it. None or several (without `all`) reject with
    /// `no-match` / `ambiguous-match` naming the candidates, changing
    /// nothing. Metadata only: applies at once, even under write approval.
    /// Resolves to `{entries, message}`.
    #[wasm_bindgen(js_name = markImportant, unchecked_return_type = "Promise<Marked>")]
    pub fn mark_important(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] query: JsValue,
        #[wasm_bindgen(unchecked_param_type = "number")] importance: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "{all?: boolean, target?: Target}")]
        options: JsValue,
    ) -> Promise {
        let decoded = to_string(&query, "query").and_then(|q| {
            let importance = rule::importance("importance", &to_json(&importance)?)?;
            let (all, target) = select_options(&options, "markImportant options", true)?;
            Ok((q, importance, all, target))
        });
        with_open(&self.inner, async move |memory| {
            let (query, importance, all, target) = decoded.map_err(throw)?;
            let marked = memory.mark_important(&query, importance, all, target).await;
            from_serde(&marked.map_err(throw)?)
        })
    }

    /// Pins the entry `query` selects: maximum importance, exempt from
    /// decay and pruning (the same flag as `#pinned` in its text). Answers
    /// like `markImportant`.
    #[wasm_bindgen(unchecked_return_type = "Promise<Marked>")]
    pub fn pin(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] query: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "{target?: Target}")] options: JsValue,
    ) -> Promise {
        let decoded = to_string(&query, "query")
            .and_then(|q| Ok((q, select_options(&options, "pin options", false)?.1)));
        with_open(&self.inner, async move |memory| {
            let (query, target) = decoded.map_err(throw)?;
            from_serde(&memory.pin(&query, target).await.map_err(throw)?)
        })
    }

    /// Removes the entry `query` selects (every entry containing it with
    /// `{all: true}`) into the history, as one atomic write; staged under
    /// write approval. Answers like the memory tool (`no-match` and
    /// `ambiguous-match` in the result, with the candidates).
    #[wasm_bindgen(unchecked_return_type = "Promise<ToolResult>")]
    pub fn forget(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] query: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "{all?: boolean, target?: Target}")]
        options: JsValue,
    ) -> Promise {
        let options = select_options(&options, "forget options", true);
        let query = to_string(&query, "query");
        with_open(&self.inner, async move |memory| {
            let (all, target) = options.map_err(throw)?;
            let result = match query {
                Ok(query) => memory.forget(&query, all, target).await,
                Err(e) => memory.refuse(e),
            };
            from_serde(&result)
        })
    }

    /// Replaces the text of the entry `query` selects with `content`,
    /// optionally setting its importance; staged under write approval.
    /// Answers like the memory tool.
    #[wasm_bindgen(js_name = updateMemory, unchecked_return_type = "Promise<ToolResult>")]
    pub fn update_memory(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] query: JsValue,
        #[wasm_bindgen(unchecked_param_type = "string")] content: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "{importance?: number, target?: Target}")]
        options: JsValue,
    ) -> Promise {
        let options = options_of_update(&options);
        let texts =
            to_string(&query, "query").and_then(|q| Ok((q, to_string(&content, "newContent")?)));
        with_open(&self.inner, async move |memory| {
            let (importance, target) = options.map_err(throw)?;
            let result = match texts {
                Ok((query, content)) => {
                    memory
                        .update_memory(&query, &content, importance, target)
                        .await
                }
                Err(e) => memory.refuse(e),
            };
            from_serde(&result)
        })
    }

    /// Puts the text of history item `id` (`history()[i].id`) back into
    /// its store as a new entry, with every check of a write; staged under
    /// write approval. Answers like the memory tool.
    #[wasm_bindgen(unchecked_return_type = "Promise<ToolResult>")]
    pub fn restore(&self, #[wasm_bindgen(unchecked_param_type = "string")] id: JsValue) -> Promise {
        let id = to_string(&id, "id");
        with_open(&self.inner, async move |memory| {
            let result = match id {
                Ok(id) => memory.restore(&id).await,
                Err(e) => memory.refuse(e),
            };
            from_serde(&result)
        })
    }

    /// Removes history items for good: `{id}` that one (`no-match` when
    /// there is none), `{before}` every item superseded before that time
    /// (ms since the Unix epoch), nothing given: all of them. Resolves to
    /// how many were removed.
    #[wasm_bindgen(js_name = purgeHistory, unchecked_return_type = "Promise<number>")]
    pub fn purge_history(
        &self,
        #[wasm_bindgen(unchecked_optional_param_type = "{before?: number, id?: string}")]
        options: JsValue,
    ) -> Promise {
        let decoded = options_of_purge(&options);
        with_open(&self.inner, async move |memory| {
            let (before, id) = decoded.map_err(throw)?;
            let n = memory
                .purge_history(before, id.as_deref())
                .await
                .map_err(throw)?;
            #[allow(clippy::cast_precision_loss)]
            Ok((n as f64).into())
        })
    }
}

/// The options of `updateMemory`: `{importance?, target?}`.
fn options_of_update(value: &JsValue) -> Result<(Option<f64>, Option<Target>), Error> {
    let (mut importance, mut target) = (None, None);
    for (key, v) in options(value, "updateMemory options", &["importance", "target"])? {
        match key.as_str() {
            "importance" => importance = Some(rule::importance("importance", &v)?),
            _ => target = Some(rule::target(&v)?),
        }
    }
    Ok((importance, target))
}

/// The options of `purgeHistory`: `{before?, id?}`.
fn options_of_purge(value: &JsValue) -> Result<(Option<u64>, Option<String>), Error> {
    let (mut before, mut id) = (None, None);
    for (key, v) in options(value, "purgeHistory options", &["before", "id"])? {
        match key.as_str() {
            "before" => before = Some(rule::time("before", &v)?.unsigned_abs()),
            _ => id = Some(rule::string("id", &v)?),
        }
    }
    Ok((before, id))
}
