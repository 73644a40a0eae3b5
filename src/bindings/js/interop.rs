//! Conversions between JS values and the core's types, in one place.
//!
//! JS values cross as JSON: `JSON.stringify` on the way in (which escapes a
//! lone UTF-16 surrogate as `\udXXX`, so serde_json refuses it instead of
//! wasm-bindgen silently turning it into U+FFFD) and `JSON.parse` on the
//! way out. Errors become a `MnemoError` (an `Error` with `name` and
//! `code`).

use js_sys::{Error as JsError, JsString, Reflect, JSON};
use serde::Serialize;
use serde_json::Value;
use wasm_bindgen::prelude::*;

use crate::error::{Error, ErrorKind};
use crate::storage::adapter::message_of;

/// A JS value as JSON. `undefined` becomes `null`; values JSON cannot hold
/// (BigInt, cycles) and lone surrogates are `invalid-input` /
/// `invalid-text` errors.
pub fn to_json(value: &JsValue) -> Result<Value, Error> {
    if value.is_undefined() {
        return Ok(Value::Null);
    }
    let text = JSON::stringify(value).map_err(|e| {
        Error::input(format!(
            "cannot read the argument as JSON: {}",
            message_of(&e)
        ))
    })?;
    let text = String::from(text);
    serde_json::from_str(&text).map_err(|e| {
        let m = e.to_string();
        // JSON.stringify only ever writes a broken \\u escape for a lone
        // surrogate, which serde_json reports as a surrogate or hex-escape error.
        if m.contains("surrogate") || m.contains("hex escape") {
            Error::new(
                ErrorKind::InvalidText,
                "a string contains a lone UTF-16 surrogate (broken text); send well-formed Unicode",
            )
        } else {
            Error::input(format!("cannot read the argument as JSON: {m}"))
        }
    })
}

/// A JS string argument, refusing lone surrogates.
pub fn to_string(value: &JsValue, what: &str) -> Result<String, Error> {
    match value.dyn_ref::<JsString>() {
        Some(s) if s.is_valid_utf16() => Ok(String::from(s)),
        Some(_) => Err(Error::new(
            ErrorKind::InvalidText,
            format!("{what} contains a lone UTF-16 surrogate (broken text)"),
        )),
        None => Err(Error::input(format!("{what} must be a string"))),
    }
}

/// A serialisable value as a plain JS value.
pub fn from_serde<T: Serialize>(value: &T) -> Result<JsValue, JsValue> {
    let text = serde_json::to_string(value)
        .map_err(|e| to_js_error(&Error::new(ErrorKind::Internal, e.to_string())))?;
    JSON::parse(&text)
}

/// A core error as a thrown `MnemoError`.
pub fn to_js_error(error: &Error) -> JsValue {
    let e = JsError::new(error.message());
    e.set_name("MnemoError");
    let _ = Reflect::set(&e, &"code".into(), &error.code().into());
    e.into()
}
