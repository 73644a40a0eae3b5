//! The activity log on a [`Memory`] (see [`crate::activity`]): records
//! appended with every write, recorded turn and note, read back by day.

use super::*;
use crate::activity::{self, Record};

impl<S: Storage> Memory<S> {
    /// The records `effects` leave in the log, made now by `agent`.
    /// A write of another origin than the foreground says so: `memory add
    /// (curation)`.
    pub(crate) fn effect_records(
        &self,
        effects: &[Effect],
        agent: Option<&str>,
        origin: Origin,
    ) -> Vec<Record> {
        let now = self.storage.now_ms();
        effects
            .iter()
            .map(|effect| {
                let (target, verb, text) = match effect {
                    Effect::Added(t, text) => (t, "add", text),
                    Effect::Replaced(t, _, text) => (t, "replace", text),
                    Effect::Removed(t, text) => (t, "remove", text),
                };
                let what = match origin {
                    Origin::Foreground => format!("{} {verb}", target.name()),
                    other => format!("{} {verb} ({})", target.name(), other.name()),
                };
                Record::new(now, agent, &what, text)
            })
            .collect()
    }

    /// The change appending `records` to today's log (read under the
    /// caller's lock); none for no records.
    pub(crate) async fn log_change(&self, records: &[Record]) -> Result<Option<Change>> {
        let Some(first) = records.first() else {
            return Ok(None);
        };
        let name = activity::blob(&first.date);
        // Only the records are written: the log is never read back here.
        let end = self.storage.end(&name).await?;
        Ok(Some(Change::Append {
            data: activity::addition(&first.date, end, records),
            at: end.map_or(0, |e| e.len),
            name,
        }))
    }

    /// Appends `records` to the log, under the lock.
    pub(crate) async fn append_log(&self, records: &[Record]) -> Result<()> {
        if records.is_empty() {
            return Ok(());
        }
        self.lock().await?;
        let done = async {
            if let Some(change) = self.log_change(records).await? {
                self.storage.commit(&[change]).await?;
            }
            Ok(())
        }
        .await;
        let unlocked = self.storage.unlock().await;
        done.and(unlocked)
    }

    /// A record of `text` for the log, with the scanner's placeholder in
    /// place of text it blocks (the log feeds a model: blocked text never
    /// reaches it).
    pub(crate) fn screened_record(&self, agent: Option<&str>, what: &str, text: &str) -> Record {
        let verdict = crate::scan::scan(text);
        let shown = if verdict.blocked {
            crate::review::placeholder(&verdict)
        } else {
            text.to_string()
        };
        Record::new(self.storage.now_ms(), agent, what, &shown)
    }

    /// Appends a note to today's activity log, by `agent` (else the
    /// memory's agent). Blocked text is logged as the scanner's
    /// placeholder; a text over [`activity::MAX_RECORD_CHARS`] is cut. The
    /// record as written.
    pub async fn log(&mut self, note: &str, agent: Option<&str>) -> Result<Record> {
        if note.trim().is_empty() {
            return Err(Error::new(
                ErrorKind::Empty,
                "the note is empty; log(note) needs the text to record",
            ));
        }
        let agent = match agent.map(str::trim).filter(|a| !a.is_empty()) {
            Some(a) if a.chars().count() > 64 || a.chars().any(char::is_control) => {
                return Err(Error::input(
                    "the agent name must be one line of at most 64 chars",
                ))
            }
            Some(a) => Some(a.to_string()),
            None => self.agent.clone(),
        };
        let record = self.screened_record(agent.as_deref(), "note", note.trim_end());
        self.append_log(std::slice::from_ref(&record)).await?;
        Ok(record)
    }

    /// The records of day `date` (`YYYY-MM-DD`, UTC; today when `None`),
    /// oldest first; none for a day without a log.
    pub async fn read_log(&self, date: Option<&str>) -> Result<Vec<Record>> {
        let date = match date.map(str::trim) {
            None | Some("") => crate::time::Utc::at(self.storage.now_ms()).date(),
            Some(d) if crate::time::parse_date(d).is_some() => d.to_string(),
            Some(d) => {
                let shown: String = d.chars().take(40).collect();
                return Err(Error::input(format!(
                    "{shown:?} is not a day; expected YYYY-MM-DD"
                )));
            }
        };
        let bytes = self.storage.read(&activity::blob(&date)).await?;
        Ok(bytes.map_or_else(Vec::new, |b| activity::parse(&date, &b)))
    }

    /// The days that have an activity log, oldest first.
    pub async fn log_days(&self) -> Result<Vec<String>> {
        Ok(activity::days(&self.storage.list().await?))
    }

    /// Blanks the text of every recorded turn in the logs (the records
    /// stay). Part of `purge_sessions`; how many days changed.
    #[cfg(feature = "sqlite")]
    pub(crate) async fn purge_log_turns(&self) -> Result<usize> {
        self.lock().await?;
        let done = async {
            let mut changes = Vec::new();
            for day in self.log_days().await? {
                let name = activity::blob(&day);
                if let Some(bytes) = self.storage.read(&name).await? {
                    if let Some(data) = activity::purge_turns(&day, &bytes) {
                        changes.push(Change::Write { name, data });
                    }
                }
            }
            if !changes.is_empty() {
                self.storage.commit(&changes).await?;
            }
            Ok(changes.len())
        }
        .await;
        let unlocked = self.storage.unlock().await;
        let n = done?;
        unlocked?;
        Ok(n)
    }

    /// Deletes the day logs older than `curation.log_retention_days`; the
    /// days deleted. Called by curation.
    pub async fn expire_logs(&self) -> Result<Vec<String>> {
        let retention = self.config.curation.log_retention_days;
        self.lock().await?;
        let done = async {
            let days = self.log_days().await?;
            let old = activity::expired(&days, retention, self.storage.now_ms());
            let changes: Vec<Change> = old
                .iter()
                .map(|d| Change::Delete {
                    name: activity::blob(d),
                })
                .collect();
            if !changes.is_empty() {
                self.storage.commit(&changes).await?;
            }
            Ok(old)
        }
        .await;
        let unlocked = self.storage.unlock().await;
        let old = done?;
        unlocked?;
        Ok(old)
    }
}
