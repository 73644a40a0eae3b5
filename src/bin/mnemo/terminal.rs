//! The terminal of `mnemo journey --play`: its size, the full-screen mode
//! (alternate screen, hidden cursor) and getting out of it cleanly, also
//! on Ctrl-C.
//!
//! Ctrl-C does not kill the player: a SIGINT (or SIGTERM) handler only
//! records the signal; the player sees it between two frames, puts the
//! terminal back and exits with 128 + the signal's number (130 for
//! Ctrl-C), as a shell reports a program that a signal ended. On systems
//! without Unix signals the handler is not installed and the size comes
//! from `COLUMNS` and `LINES`.

use std::io::{self, Write};
use std::sync::atomic::{AtomicI32, Ordering};

/// The signal that asked the player to stop, 0 while none did.
static STOPPED_BY: AtomicI32 = AtomicI32::new(0);

/// Enter the alternate screen, hide the cursor, clear.
const ENTER: &str = "\x1b[?1049h\x1b[?25l\x1b[2J";
/// Reset colours, leave the alternate screen, show the cursor (after
/// leaving: some terminals restore the cursor mode saved on entering).
const LEAVE: &str = "\x1b[0m\x1b[?1049l\x1b[?25h";

/// The size of the terminal on standard output, as (columns, lines):
/// asked of the terminal, else `COLUMNS` and `LINES`.
pub fn size() -> Option<(usize, usize)> {
    asked_size().or_else(|| {
        let var = |name| {
            std::env::var(name)
                .ok()
                .and_then(|v| v.trim().parse::<usize>().ok())
                .filter(|&n| n > 0)
        };
        Some((var("COLUMNS")?, var("LINES")?))
    })
}

#[cfg(unix)]
fn asked_size() -> Option<(usize, usize)> {
    // SAFETY: TIOCGWINSZ writes one `winsize` into the struct it is given,
    // which lives for the whole call.
    let mut ws: libc::winsize = unsafe { std::mem::zeroed() };
    let ok = unsafe { libc::ioctl(libc::STDOUT_FILENO, libc::TIOCGWINSZ, &mut ws) } == 0;
    (ok && ws.ws_col > 0 && ws.ws_row > 0).then(|| (usize::from(ws.ws_col), usize::from(ws.ws_row)))
}

#[cfg(not(unix))]
fn asked_size() -> Option<(usize, usize)> {
    None
}

#[cfg(unix)]
extern "C" fn record(signal: libc::c_int) {
    // Only an atomic store: all that is safe in a signal handler.
    STOPPED_BY.store(signal, Ordering::SeqCst);
}

/// From now on, SIGINT and SIGTERM only record themselves (see
/// [`stopped_by`]) instead of ending the process.
#[cfg(unix)]
pub fn catch_stop_signals() {
    for signal in [libc::SIGINT, libc::SIGTERM] {
        // SAFETY: a zeroed sigaction is a valid empty one; the handler is
        // an `extern "C" fn(c_int)` that only stores to an atomic.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = record as extern "C" fn(libc::c_int) as libc::sighandler_t;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(signal, &action, std::ptr::null_mut());
        }
    }
}

/// Without Unix signals, Ctrl-C ends the process as usual.
#[cfg(not(unix))]
pub fn catch_stop_signals() {}

/// The signal caught since [`catch_stop_signals`], if any.
pub fn stopped_by() -> Option<i32> {
    match STOPPED_BY.load(Ordering::SeqCst) {
        0 => None,
        s => Some(s),
    }
}

/// The terminal in full-screen mode while this lives: alternate screen,
/// hidden cursor. Dropping it (at the end, on an error, on a panic) puts
/// the terminal back.
pub struct FullScreen {
    _private: (),
}

impl FullScreen {
    /// Enters full-screen mode.
    pub fn enter() -> io::Result<FullScreen> {
        let mut out = io::stdout().lock();
        out.write_all(ENTER.as_bytes())?;
        out.flush()?;
        Ok(FullScreen { _private: () })
    }

    /// Draws `frame` (lines joined by `\n`) from the top left corner, each
    /// line cleared first, without ever moving past the last line (so
    /// nothing scrolls).
    pub fn draw(&self, frame: &str) -> io::Result<()> {
        let mut text = String::with_capacity(frame.len() + 256);
        for (y, line) in frame.lines().enumerate() {
            text.push_str(&format!("\x1b[{};1H\x1b[2K", y + 1));
            text.push_str(line);
        }
        let mut out = io::stdout().lock();
        out.write_all(text.as_bytes())?;
        out.flush()
    }
}

impl Drop for FullScreen {
    fn drop(&mut self) {
        // Nothing to do if the terminal is gone.
        let mut out = io::stdout().lock();
        let _ = out.write_all(LEAVE.as_bytes());
        let _ = out.flush();
    }
}
