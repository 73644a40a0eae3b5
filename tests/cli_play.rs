//! `mnemo journey --play` as a user runs it: piped (the last frame only,
//! as plain text) and on a real terminal, a tmux pane (frames full screen,
//! Ctrl-C leaves the terminal clean with exit status 130, a normal end
//! leaves the last frame printed). The terminal tests are skipped, with a
//! note, where tmux is not installed.
#![cfg(all(unix, not(target_arch = "wasm32")))]

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::thread::sleep;
use std::time::{Duration, Instant};

use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_mnemo");

/// A fresh `$MNEMO_HOME` with its memories directory.
struct Home {
    dir: tempfile::TempDir,
}

impl Home {
    fn new() -> Home {
        Home {
            dir: tempfile::tempdir().unwrap(),
        }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn memories(&self) -> PathBuf {
        self.path().join("memories")
    }

    fn run(&self, args: &[&str]) -> Output {
        Command::new(BIN)
            .env("MNEMO_HOME", self.path())
            .env_remove("MNEMO_AGENT")
            .env_remove("MNEMO_SCOPE")
            .env_remove("MNEMO_WORKSPACE")
            .current_dir(self.path())
            .arg("--dir")
            .arg(self.memories())
            .args(args)
            .output()
            .unwrap()
    }

    fn ok(&self, args: &[&str]) -> String {
        let out = self.run(args);
        assert!(
            out.status.success(),
            "{args:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }

    /// Four notes in three sectors, one linking another, written one by
    /// one (so each is a step of the timeline).
    fn with_notes(self) -> Home {
        self.ok(&["add", "# SSH config\nPort 2222, keys only #infra"]);
        self.ok(&[
            "add",
            "# Fail2ban\nbans after 5 failures, see [[SSH config]]",
        ]);
        self.ok(&["add", "# Vector search #retrieval\nHNSW over bge-small"]);
        self.ok(&["add", "--target", "user", "Name: Ada"]);
        self
    }

    /// How many frames `--play` has: the distinct first-seen times.
    fn steps(&self) -> usize {
        let payload: Value = serde_json::from_str(&self.ok(&["journey", "--json"])).unwrap();
        let times: BTreeSet<u64> = payload["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n["first_seen"].as_u64().unwrap())
            .collect();
        times.len()
    }
}

const TITLES: [&str; 4] = ["SSH config", "Fail2ban", "Vector search", "Name: Ada"];

#[test]
fn piped_play_prints_the_last_frame_only_as_plain_text() {
    let home = Home::new().with_notes();
    let n = home.steps();
    let frame = home.ok(&["journey", "--play", "--width", "72", "--height", "18"]);
    assert!(!frame.contains('\x1b'), "{frame:?}");
    assert_eq!(frame.lines().count(), 18, "{frame}");
    assert!(frame.lines().all(|l| l.chars().count() <= 72), "{frame}");
    let header = frame.lines().next().unwrap();
    assert!(header.starts_with("✦ Journey · "), "{header}");
    assert!(header.ends_with(&format!(" · {n}/{n}")), "{header}");
    for title in TITLES {
        assert!(frame.contains(title), "{title} missing from\n{frame}");
    }
    for sector in ["infra", "retrieval", "unsorted"] {
        assert!(frame.contains(sector), "{sector} missing from\n{frame}");
    }
    assert!(
        frame.contains("4 notes · 0 skills · 1 link  + ◆ Name: Ada"),
        "{frame}"
    );
    // Not a terminal and no size given: 80x24.
    let frame = home.ok(&["journey", "--play"]);
    assert_eq!(frame.lines().count(), 24);
    assert!(frame.lines().all(|l| l.chars().count() <= 80), "{frame}");
}

#[test]
fn play_flags_are_checked_and_json_wins() {
    let home = Home::new().with_notes();
    let payload: Value = serde_json::from_str(&home.ok(&["journey", "--play", "--json"])).unwrap();
    assert_eq!(payload["nodes"].as_array().unwrap().len(), 4);
    for (args, says) in [
        (
            &["journey", "--play", "--fps", "0"][..],
            "0 is not in 1..=60",
        ),
        (
            &["journey", "--play", "--fps", "61"][..],
            "61 is not in 1..=60",
        ),
        (&["journey", "--fps", "8"][..], "--play"),
        (&["journey", "--height", "30"][..], "--play"),
    ] {
        let out = home.run(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(says), "{args:?}: {err}");
    }
    let out = home.run(&["journey", "--play", "--width", "12"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--play needs at least 20 columns and 6 lines, not 12x24"),
        "{err}"
    );
    assert!(home
        .ok(&["journey", "--play", "--fps", "60"])
        .contains("4 notes"));
}

#[test]
fn an_empty_journey_plays_one_frame_saying_so() {
    let home = Home::new();
    let frame = home.ok(&["journey", "--play", "--no-color"]);
    assert!(frame.starts_with("✦ Journey · nothing yet\n"), "{frame}");
    assert!(frame.contains("nothing learned yet"), "{frame}");
    assert!(frame.contains("0 notes · 0 skills · 0 links"), "{frame}");
}

/// A tmux server of its own (its own socket), killed when dropped.
struct Tmux {
    socket: PathBuf,
}

impl Tmux {
    /// A server on a socket in `dir`, or `None` (with a note) without tmux.
    fn new(dir: &Path) -> Option<Tmux> {
        if Command::new("tmux").arg("-V").output().is_err() {
            eprintln!("note: tmux is not installed; the terminal tests of --play are skipped");
            return None;
        }
        Some(Tmux {
            socket: dir.join("tmux.sock"),
        })
    }

    fn run(&self, args: &[&str]) -> String {
        let out = Command::new("tmux")
            .arg("-S")
            .arg(&self.socket)
            .args(["-f", "/dev/null"])
            .args(args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "tmux {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }

    /// What the pane shows.
    fn screen(&self) -> String {
        self.run(&["capture-pane", "-p", "-t", "play"])
    }

    /// `(alternate screen on, cursor visible)` of the pane.
    fn modes(&self) -> (bool, bool) {
        let out = self.run(&[
            "display-message",
            "-p",
            "-t",
            "play",
            "#{alternate_on} #{cursor_flag}",
        ]);
        match out.split_whitespace().collect::<Vec<_>>()[..] {
            [alt, cursor] => (alt == "1", cursor == "1"),
            _ => panic!("tmux said {out:?}"),
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .arg("-S")
            .arg(&self.socket)
            .arg("kill-server")
            .output();
    }
}

/// Polls `check` every 20 ms for up to 10 s.
fn eventually<T>(what: &str, mut check: impl FnMut() -> Option<T>) -> T {
    let start = Instant::now();
    loop {
        if let Some(found) = check() {
            return found;
        }
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "timed out waiting for {what}"
        );
        sleep(Duration::from_millis(20));
    }
}

/// Starts `mnemo journey --play ARGS` in an 80x24 tmux pane, through a
/// shell that writes its exit status to a file and then keeps the pane
/// open (so the pane's modes can be read after mnemo is gone). The shell
/// traps SIGINT only to outlive the Ctrl-C meant for mnemo.
fn start(home: &Home, args: &str) -> Option<(Tmux, PathBuf)> {
    let tmux = Tmux::new(home.path())?;
    let status = home.path().join("status");
    let script = home.path().join("play.sh");
    fs::write(
        &script,
        format!(
            "trap true INT\n\
             unset MNEMO_AGENT MNEMO_SCOPE MNEMO_WORKSPACE\n\
             MNEMO_HOME='{home}' '{BIN}' --dir '{dir}' journey --play {args}\n\
             echo $? > '{status}.tmp' && mv '{status}.tmp' '{status}'\n\
             sleep 60\n",
            home = home.path().display(),
            dir = home.memories().display(),
            status = status.display(),
        ),
    )
    .unwrap();
    let command = format!("/bin/sh '{}'", script.display());
    tmux.run(&[
        "new-session",
        "-d",
        "-s",
        "play",
        "-x",
        "80",
        "-y",
        "24",
        "-c",
        &home.path().display().to_string(),
        &command,
    ]);
    Some((tmux, status))
}

fn exit_status(status: &Path) -> String {
    eventually("mnemo to exit", || {
        fs::read_to_string(status)
            .ok()
            .map(|s| s.trim().to_string())
    })
}

#[test]
fn ctrl_c_on_a_terminal_leaves_it_clean_with_status_130() {
    let home = Home::new().with_notes();
    // Two frames a second: the animation lasts long enough to be stopped.
    let Some((tmux, status)) = start(&home, "--fps 2") else {
        return;
    };
    let frame = eventually("a first frame", || {
        let screen = tmux.screen();
        screen.contains("✦ Journey · ").then_some(screen)
    });
    assert!(frame.contains("◆ SSH config"), "{frame}");
    assert_eq!(tmux.modes(), (true, false), "full screen, cursor hidden");
    tmux.run(&["send-keys", "-t", "play", "C-c"]);
    assert_eq!(exit_status(&status), "130");
    assert_eq!(tmux.modes(), (false, true), "main screen, cursor shown");
    let screen = tmux.screen();
    assert!(
        !screen.contains("✦ Journey"),
        "the frames stay behind:\n{screen}"
    );
}

#[test]
fn a_whole_play_on_a_terminal_ends_with_the_last_frame_printed() {
    let home = Home::new().with_notes();
    let n = home.steps();
    let Some((tmux, status)) = start(&home, "--fps 60") else {
        return;
    };
    assert_eq!(exit_status(&status), "0");
    assert_eq!(tmux.modes(), (false, true), "main screen, cursor shown");
    let screen = tmux.screen();
    assert!(screen.contains(&format!(" · {n}/{n}")), "{screen}");
    for title in TITLES {
        assert!(screen.contains(title), "{title} missing from\n{screen}");
    }
    assert!(screen.contains("4 notes · 0 skills · 1 link"), "{screen}");
}
