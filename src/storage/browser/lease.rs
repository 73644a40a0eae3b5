//! Sharing one memory between the tabs and workers of an origin: its Web
//! Lock `mnemo:<name>`, held on a lease, and its BroadcastChannel
//! `mnemo:<name>`.
//!
//! After a call this context keeps the lock (and with OPFS the pool's file
//! handles and an open database) for [`LEASE_MS`], so a burst of calls pays
//! for one acquisition. Any other context that needs the memory first posts
//! `want:<id>` on the channel; the holder lets go as soon as its current
//! call ends. While the lease is held nobody else can write, so the
//! database needs no re-reading. After a commit the holder posts
//! `changed:<id>`; `Memory.delete` and `Memory.recover` announce `deleted`
//! and `changed` to every context.

use std::cell::{Cell, RefCell};
use std::rc::{Rc, Weak};

use js_sys::{Function, Promise};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use crate::error::{Error, Result};
use crate::storage::adapter::js_error;

#[wasm_bindgen(module = "/js/browser-db.js")]
extern "C" {
    #[wasm_bindgen(js_name = lockAcquire)]
    fn lock_acquire(name: &str) -> Promise;
    #[wasm_bindgen(js_name = channelOpen)]
    fn channel_open(name: &str, on_message: &Function) -> JsValue;
    #[wasm_bindgen(js_name = channelPost)]
    fn channel_post(channel: &JsValue, data: &JsValue);
    #[wasm_bindgen(js_name = channelClose)]
    fn channel_close(channel: &JsValue);
    #[wasm_bindgen(js_name = channelAnnounce)]
    fn channel_announce(name: &str, data: &JsValue);
    #[wasm_bindgen(js_name = later)]
    fn later(ms: u32, f: &JsValue);
}

/// How long a context keeps the lock and the open database after its last
/// call when nobody else asked for them: calls in a burst then skip the
/// acquisition (a Web Lock, and with OPFS the pool's file handles).
pub const LEASE_MS: u32 = 1_000;

/// The channel listener of a [`Lease`].
type Listener = Closure<dyn FnMut(JsValue)>;

/// This context's hold on one memory's Web Lock; see the module docs.
pub struct Lease(Rc<State>);

struct State {
    name: String,
    /// Tells this context's messages from the others' (`want:<id>`).
    id: String,
    /// Releases the Web Lock while held.
    release: RefCell<Option<Function>>,
    /// A call holds the lock now (between `take` and `end`).
    busy: Cell<bool>,
    /// Another context asked for the lock.
    wanted: Cell<bool>,
    /// Generation of the lease timer (a newer call voids older timers).
    generation: Cell<u32>,
    channel: RefCell<JsValue>,
    listener: RefCell<Option<Listener>>,
    /// Runs before the Web Lock goes (OPFS: close the database and pause
    /// the pool, so the next holder can take the file handles).
    before_release: Box<dyn Fn()>,
}

impl Drop for State {
    fn drop(&mut self) {
        channel_close(&self.channel.replace(JsValue::NULL));
        self.let_go();
    }
}

impl State {
    /// Gives the lock back (after `before_release`).
    fn let_go(&self) {
        self.wanted.set(false);
        let Some(release) = self.release.borrow_mut().take() else {
            return;
        };
        (self.before_release)();
        let _ = release.call0(&JsValue::NULL);
    }
}

impl Lease {
    /// The lease of memory `name` in this context, holding `held` (the lock
    /// taken while opening) if given.
    pub fn new(name: &str, held: Option<Function>, before_release: Box<dyn Fn()>) -> Lease {
        Lease(Rc::new(State {
            name: name.to_string(),
            id: format!("{:x}", (js_sys::Math::random() * 1e15) as u64),
            release: RefCell::new(held),
            busy: Cell::new(false),
            wanted: Cell::new(false),
            generation: Cell::new(0),
            channel: RefCell::new(JsValue::NULL),
            listener: RefCell::new(None),
            before_release,
        }))
    }

    /// Starts a call: takes the Web Lock unless the lease still holds it.
    /// Resolves to whether it was taken anew (another context may have
    /// committed since). On failure nothing is held.
    pub async fn take(&self) -> Result<bool> {
        let state = &self.0;
        // A call voids the pending lease timer.
        state.generation.set(state.generation.get().wrapping_add(1));
        state.busy.set(true);
        if state.release.borrow().is_some() {
            return Ok(false);
        }
        let channel = state.channel.borrow().clone();
        match acquire(&state.name, &state.id, &channel).await {
            Ok(release) => {
                *state.release.borrow_mut() = Some(release);
                Ok(true)
            }
            Err(e) => {
                self.abort();
                Err(e)
            }
        }
    }

    /// Ends a call that failed while taking the lock: lets go at once.
    pub fn abort(&self) {
        self.0.busy.set(false);
        self.0.let_go();
    }

    /// Ends a call: announces a commit (`changed`), then lets go if another
    /// context asked, else keeps the lease for [`LEASE_MS`].
    pub fn end(&self, changed: bool) {
        let state = &self.0;
        state.busy.set(false);
        if changed {
            channel_post(
                &state.channel.borrow(),
                &format!("changed:{}", state.id).into(),
            );
        }
        if state.wanted.get() {
            state.let_go();
            return;
        }
        // Keep the lease a moment; a later call voids this timer.
        let generation = state.generation.get().wrapping_add(1);
        state.generation.set(generation);
        let weak = Rc::downgrade(&self.0);
        let expire = Closure::once_into_js(move || {
            if let Some(state) = weak.upgrade() {
                if state.generation.get() == generation && !state.busy.get() {
                    state.let_go();
                }
            }
        });
        later(LEASE_MS, &expire);
    }

    /// Listens to the other contexts of this memory: a `want` makes this
    /// one let go of the lock (at once, or when its call ends); `changed`
    /// (another context committed) and `deleted` are passed to `on_message`.
    pub fn subscribe(&self, on_message: Function) {
        let weak: Weak<State> = Rc::downgrade(&self.0);
        let listener = Closure::<dyn FnMut(JsValue)>::new(move |message: JsValue| {
            let Some(state) = weak.upgrade() else { return };
            let message = message.as_string().unwrap_or_default();
            let (kind, from) = message.split_once(':').unwrap_or((&message, ""));
            if from == state.id {
                return;
            }
            if kind == "want" {
                if state.busy.get() {
                    state.wanted.set(true);
                } else {
                    state.let_go();
                }
            } else {
                let _ = on_message.call1(&JsValue::NULL, &kind.into());
            }
        });
        *self.0.channel.borrow_mut() =
            channel_open(&self.0.name, listener.as_ref().unchecked_ref());
        *self.0.listener.borrow_mut() = Some(listener);
    }

    /// Lets go of the lock now, still listening (between calls only).
    pub fn let_go(&self) {
        self.0.let_go();
    }

    /// Stops listening and lets go of the lock (on close).
    pub fn close(&self) {
        channel_close(&self.0.channel.replace(JsValue::NULL));
        self.0.listener.borrow_mut().take();
        self.0.let_go();
    }
}

/// Asks the other contexts of memory `name` to let go (`want:<id>` on
/// `channel`, or on a temporary one), then waits for its Web Lock; resolves
/// to the release function.
pub async fn acquire(name: &str, id: &str, channel: &JsValue) -> Result<Function> {
    let want = JsValue::from(format!("want:{id}"));
    if channel.is_null() || channel.is_undefined() {
        channel_announce(name, &want);
    } else {
        channel_post(channel, &want);
    }
    let release = JsFuture::from(lock_acquire(name)).await.map_err(js_error)?;
    release
        .dyn_into::<Function>()
        .map_err(|_| Error::storage("the Web Lock gave no release function"))
}

/// Tells every context of memory `name` that something happened to it
/// (`changed:<why>`, `deleted:<why>`).
pub fn announce(name: &str, message: &str) {
    channel_announce(name, &message.into());
}
