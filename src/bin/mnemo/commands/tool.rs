//! The raw memory tool: `mnemo tool` runs a call exactly as a model sends
//! it, `mnemo schema` prints the tool's definition.
//!
//! Both print the core's JSON unchanged; the CLI adds nothing to a tool
//! result, so a harness sees what a model would. The one exception is a
//! person at a terminal while approval is on: they are asked about a staged
//! write at once, and the result printed is what their answer led to.

use std::process::ExitCode;

use mnemo::storage::run_ready;
use mnemo::{tool_schema, Error, ErrorKind, Result};
use serde_json::Value;

use crate::commands::approval::settle;
use crate::input::arg_or_stdin;
use crate::paths::Paths;
use crate::render::{out, pretty};

/// `mnemo tool`: one call; the exit status says whether it succeeded.
pub fn tool(paths: &Paths, json: String) -> Result<ExitCode> {
    let text = arg_or_stdin(json)?;
    let (mut memory, _) = paths.open()?;
    // Whatever goes wrong, answer like the tool does, so a harness always
    // gets a result.
    let result = match serde_json::from_str::<Value>(&text) {
        Ok(args) => {
            let result = run_ready(memory.tool(&args)).unwrap_or_else(|e| memory.refuse(e));
            settle(&mut memory, result)?
        }
        Err(e) => memory.refuse(Error::new(
            ErrorKind::InvalidInput,
            format!(
                "the tool arguments are not valid JSON ({e}); expected an object like \
                 {{\"action\": \"add\", \"target\": \"memory\", \"content\": \"…\"}}"
            ),
        )),
    };
    out(&pretty(&result)?)?;
    Ok(if result.success {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// `mnemo schema`: the tool's name, description and JSON Schema.
pub fn schema() -> Result<ExitCode> {
    out(&pretty(&tool_schema())?)?;
    Ok(ExitCode::SUCCESS)
}
