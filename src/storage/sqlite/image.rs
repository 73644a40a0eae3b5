//! A database kept as an image in another [`Storage`]: the sessions of a
//! memory whose stores live in a storage without SQLite of its own (the
//! npm package's `"fs"` storage, adapter objects of edge hosts).
//!
//! The image (SQLite's `serialize`) and its change counter are two blobs,
//! written together in one commit of the other storage, under its lock.
//! The image is read again only when the counter moved (another writer), so
//! a reader pays one small read per access; every write rewrites the whole
//! image, so the cost grows with the database.

use std::cell::Cell;

use super::{from_image, to_image, Backing, Slot};
use crate::db;
use crate::error::Result;
use crate::storage::{Change, Storage};

/// The blob holding the database image.
pub const IMAGE_BLOB: &str = "sessions.db";
/// The blob holding that image's change counter.
pub const VERSION_BLOB: &str = "sessions.version";

/// The [`Backing`] of a database kept as an image in `S`.
pub struct Image<S: Storage> {
    storage: S,
    /// The change counter of the loaded image; -1 when none is loaded.
    seen: Cell<i64>,
}

impl<S: Storage> Image<S> {
    /// The image kept in `storage` (read on first access).
    pub fn new(storage: S) -> Image<S> {
        Image {
            storage,
            seen: Cell::new(-1),
        }
    }

    /// The storage holding the image.
    pub fn storage(&self) -> &S {
        &self.storage
    }

    /// Loads the image unless the loaded one is current.
    async fn load(&self, db: &Slot) -> Result<()> {
        let stored = match self.storage.read(VERSION_BLOB).await? {
            Some(v) => String::from_utf8_lossy(&v).trim().parse().unwrap_or(-1),
            None => -1,
        };
        if db.is_open() && stored == self.seen.get() {
            return Ok(());
        }
        let image = self.storage.read(IMAGE_BLOB).await?;
        let conn = from_image(image.as_deref())?;
        db::prepare(&conn)?;
        self.seen.set(db::version(&conn)?);
        db.set(conn);
        Ok(())
    }
}

impl<S: Storage> Backing for Image<S> {
    fn kind(&self) -> &str {
        self.storage.kind()
    }

    fn now_ms(&self) -> u64 {
        self.storage.now_ms()
    }

    async fn acquire(&self, db: &Slot) -> Result<()> {
        // The storage's own writers' lock (the CLI's lock file for "fs"),
        // then the image if another writer changed it.
        self.storage.lock().await?;
        if let Err(e) = self.load(db).await {
            let _ = self.storage.unlock().await;
            return Err(e);
        }
        Ok(())
    }

    async fn persist(&self, db: &Slot) -> Result<()> {
        let (version, bytes) = {
            let mut conn = db.get_mut()?;
            (db::version(&conn)?, to_image(&mut conn)?)
        };
        // Image and counter in one (journaled) commit.
        let saved = self
            .storage
            .commit(&[
                Change::write(IMAGE_BLOB, &bytes),
                Change::write(VERSION_BLOB, version.to_string().as_bytes()),
            ])
            .await;
        match saved {
            Ok(()) => {
                self.seen.set(version);
                Ok(())
            }
            Err(e) => {
                db.take();
                self.seen.set(-1);
                Err(e)
            }
        }
    }

    async fn release(&self, _db: &Slot, _changed: bool) -> Result<()> {
        self.storage.unlock().await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;
    use crate::sessions::{Filter, Sessions};
    use crate::storage::{MemoryStorage, SqliteStorage};
    use pollster::block_on;

    /// Records a turn through `s`'s database.
    async fn record<B: Backing>(s: &SqliteStorage<B>, text: &str, time: i64) -> Result<()> {
        s.database(true, |c| {
            Sessions::on(c)?.record_turn("s", "t", text, "noted", time)?;
            Ok(())
        })
        .await
    }

    /// How many messages of `s` match `query`.
    async fn hits<B: Backing>(s: &SqliteStorage<B>, query: &str) -> usize {
        s.database(false, |c| {
            Ok(Sessions::on(c)?
                .search(query, &Filter::default(), 10)?
                .len())
        })
        .await
        .unwrap()
    }

    #[test]
    fn two_writers_share_the_image_and_a_failed_save_changes_nothing() {
        let blobs = MemoryStorage::new();
        let a = SqliteStorage::on(Image::new(blobs.clone()));
        let b = SqliteStorage::on(Image::new(blobs.clone()));
        block_on(async {
            record(&a, "which port for staging?", 1).await.unwrap();
            // b loads the image a wrote, writes, and a sees it next time.
            record(&b, "which port for prod?", 2).await.unwrap();
            assert_eq!(hits(&a, "port").await, 2);
            assert_eq!(
                blobs.snapshot().keys().cloned().collect::<Vec<_>>(),
                vec![IMAGE_BLOB.to_string(), VERSION_BLOB.to_string()]
            );

            blobs.fail_writes_after(Some(0));
            let e = record(&a, "is this lost?", 3).await.unwrap_err();
            assert_eq!(e.kind(), ErrorKind::Storage);
            blobs.fail_writes_after(None);
            assert_eq!(
                hits(&a, "lost").await,
                0,
                "a failed write is gone after the reload"
            );
            assert_eq!(hits(&b, "port").await, 2);
        });
        assert_eq!(a.kind(), "memory");
    }
}
