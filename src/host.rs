//! What a host lends mnemo: callbacks mnemo calls but never implements.
//! mnemo calls no network and loads no model itself (see DESIGN, "Host
//! callbacks"); a host that runs a prompt-injection model plugs it in here.
//!
//! A callback can only add to what the core decides: a classifier adds
//! blocks to the scanner's rules, never lifts one. A callback that fails or
//! answers nonsense changes nothing, and the result says what was skipped.
//! This module must never call a callback on text the rules already block.

use std::future::Future;
use std::pin::Pin;

use crate::error::Result;

/// The future a callback answers with.
pub type Answer<'a, T> = Pin<Box<dyn Future<Output = Result<T>> + 'a>>;

/// A host's prompt-injection classifier: the probability, from 0 to 1, that
/// a text is an injection. Consulted for every text a model writes into
/// memory, after the scanner's rules passed it.
pub trait Classifier {
    /// Scores `text`.
    fn score<'a>(&'a self, text: &'a str) -> Answer<'a, f64>;
}

/// A host's language model, for the background review: given OpenAI-style
/// chat `messages` and `tools`, the assistant's answer as JSON (`{content,
/// tool_calls?, usage?}`, or a whole chat-completions response). mnemo
/// reads the answer strictly ([`crate::review::Reply::from_json`]); an
/// error or nonsense stops the review with the reason, and the writes made
/// before it stand.
pub trait Llm {
    /// Answers one request.
    fn complete<'a>(&'a self, request: &'a crate::review::Request)
        -> Answer<'a, serde_json::Value>;
}

/// A host's embedding model, for hybrid recall: one vector per text, all of
/// [`Embedder::dimensions`] numbers. mnemo stores the vectors of entries
/// by (model, text hash) and asks only for new or changed texts; an error
/// or a malformed answer makes recall fall back to keywords and say so.
pub trait Embedder {
    /// The model's name (vectors are kept per model).
    fn model(&self) -> &str;
    /// The length of every vector.
    fn dimensions(&self) -> usize;
    /// Embeds `texts`, in order.
    fn embed<'a>(&'a self, texts: &'a [String]) -> Answer<'a, Vec<Vec<f32>>>;
}

/// The score from which a classifier's answer blocks a write.
pub const CLASSIFIER_THRESHOLD: f64 = 0.5;

/// What a classifier said of one text.
#[derive(Clone, Debug, PartialEq)]
pub enum Judgement {
    /// Below the threshold.
    Pass,
    /// At or above the threshold: the score.
    Block(f64),
    /// The classifier failed or answered nonsense: why (the rules' verdict
    /// stands).
    Skipped(String),
}

/// Asks `classifier` about `text`.
pub async fn judge(classifier: &dyn Classifier, text: &str) -> Judgement {
    match classifier.score(text).await {
        Ok(score) if (0.0..=1.0).contains(&score) => {
            if score >= CLASSIFIER_THRESHOLD {
                Judgement::Block(score)
            } else {
                Judgement::Pass
            }
        }
        Ok(score) => Judgement::Skipped(format!(
            "the host's classifier answered {score}, not a score from 0 to 1; the scanner's \
             rules alone judged this write"
        )),
        Err(e) => Judgement::Skipped(format!(
            "the host's classifier failed ({}); the scanner's rules alone judged this write",
            e.message()
        )),
    }
}
