//! The stored image of a browser memory in IndexedDB, in pages and a log
//! (see `browser/idb.rs` and js/browser-db.js for the layout): which pages
//! a commit stores, and whether as one log record or by folding the log
//! into the pages. Plain Rust, so that it is tested natively.

use std::collections::BTreeSet;

/// Bytes per page of a stored image: a SQLite page of mnemo's databases,
/// and well below the size at which a browser moves a value out to a file
/// of its own (64 KiB in Chromium). A log record joins a commit's pages and
/// may pass that size (a long session turn); a fold puts them back as
/// records of one page.
pub const PAGE: usize = 8192;

/// Log records after which a commit folds the log into the pages: a load
/// reads them all and applies them in order.
pub const LOG_RECORDS: usize = 24;

/// Bytes of log after which a commit folds it (commits that change many
/// pages, such as long session turns, fold sooner).
pub const LOG_BYTES: usize = 1 << 20;

/// The log of commits stored since the pages were last folded.
#[derive(Default, Debug, PartialEq, Eq)]
pub struct Log {
    /// The pages it changed.
    pub pages: BTreeSet<u32>,
    /// Its records.
    pub records: usize,
    /// Their bytes.
    pub bytes: usize,
}

/// How a commit is stored (js/browser-db.js has the layout).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Mode {
    /// One log record with the pages the commit changed.
    Log,
    /// The pages the log and the commit changed, each at its key; the log
    /// cleared.
    Fold,
    /// Every page, over an earlier release's single record (or nothing).
    Whole,
}

impl Mode {
    /// Its name in js/browser-db.js.
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Log => "log",
            Mode::Fold => "fold",
            Mode::Whole => "whole",
        }
    }
}

/// A commit to store: pages of the new image by index, joined.
pub struct Commit {
    /// The new image's length.
    pub size: usize,
    /// The pages stored, by index.
    pub indices: Vec<u32>,
    /// Those pages, joined (the image's last page may be shorter).
    pub bytes: Vec<u8>,
    /// How they are stored.
    pub mode: Mode,
}

impl Commit {
    /// Every page of `image`, over an earlier release's single record (or
    /// nothing).
    pub fn whole(image: &[u8]) -> Commit {
        Commit {
            size: image.len(),
            indices: (0..image.len().div_ceil(PAGE) as u32).collect(),
            bytes: image.to_vec(),
            mode: Mode::Whole,
        }
    }
}

/// Plans the commit of `image`, whose pages `dirty` changed since the last
/// commit, over `log`, what the stored log holds, which is brought up to
/// the commit: one more log record, or, once the log is long enough, a
/// fold.
pub fn plan(log: &mut Log, dirty: BTreeSet<u32>, image: &[u8]) -> Commit {
    let pages = image.len().div_ceil(PAGE) as u32;
    let page_bytes = |i: u32| PAGE.min(image.len() - i as usize * PAGE);
    let dirty: Vec<u32> = dirty.into_iter().filter(|&i| i < pages).collect();
    let dirty_bytes: usize = dirty.iter().map(|&i| page_bytes(i)).sum();
    let (mode, indices) = if log.records < LOG_RECORDS && log.bytes + dirty_bytes <= LOG_BYTES {
        log.pages.extend(&dirty);
        log.records += 1;
        log.bytes += dirty_bytes;
        (Mode::Log, dirty)
    } else {
        let mut all = std::mem::take(log).pages;
        all.extend(dirty);
        (Mode::Fold, all.into_iter().filter(|&i| i < pages).collect())
    };
    let mut bytes = Vec::with_capacity(indices.len() * PAGE);
    for &i in &indices {
        let start = i as usize * PAGE;
        bytes.extend_from_slice(&image[start..start + page_bytes(i)]);
    }
    Commit {
        size: image.len(),
        indices,
        bytes,
        mode,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An image of `pages` pages, page `i` filled with byte `i`.
    fn image(pages: usize) -> Vec<u8> {
        (0..pages).flat_map(|i| vec![i as u8; PAGE]).collect()
    }

    /// What a reader rebuilds: `base` with `log`'s records applied in order,
    /// as js/browser-db.js does.
    fn apply(mut base: Vec<u8>, log: &[&Commit]) -> Vec<u8> {
        for c in log {
            base.resize(c.size, 0);
            let mut from = 0;
            for &i in &c.indices {
                let at = i as usize * PAGE;
                let len = PAGE.min(c.size - at);
                base[at..at + len].copy_from_slice(&c.bytes[from..from + len]);
                from += len;
            }
        }
        base
    }

    #[test]
    fn a_whole_commit_stores_every_page() {
        let mut img = image(5);
        img.truncate(4 * PAGE + 10);
        let c = Commit::whole(&img);
        assert_eq!((c.mode, c.mode.as_str()), (Mode::Whole, "whole"));
        assert_eq!(c.indices, vec![0, 1, 2, 3, 4]);
        assert_eq!(c.bytes, img);
        assert_eq!(apply(Vec::new(), &[&c]), img);
    }

    #[test]
    fn a_commit_logs_the_pages_written_and_a_reader_rebuilds_the_image() {
        let base = image(6);
        let mut log = Log::default();
        let mut now = base.clone();
        now[2 * PAGE + 5] ^= 1;
        now[5 * PAGE] ^= 1;
        let first = plan(&mut log, BTreeSet::from([2, 5]), &now);
        assert_eq!((first.mode, &first.indices[..]), (Mode::Log, &[2, 5][..]));
        assert_eq!(first.bytes.len(), 2 * PAGE);
        // The image grows by a short page and changes page 2 again.
        let mut later = now.clone();
        later[2 * PAGE] ^= 1;
        later.extend_from_slice(&[7; 100]);
        let second = plan(&mut log, BTreeSet::from([2, 6]), &later);
        assert_eq!((second.mode, &second.indices[..]), (Mode::Log, &[2, 6][..]));
        assert_eq!(second.bytes.len(), PAGE + 100);
        assert_eq!(log.pages, BTreeSet::from([2, 5, 6]));
        assert_eq!((log.records, log.bytes), (2, 3 * PAGE + 100));
        assert_eq!(apply(base, &[&first, &second]), later);
        // Nothing written: an empty record (the counter still moves); a
        // page past the end is left out.
        let none = plan(&mut log, BTreeSet::from([9]), &later);
        assert_eq!((none.mode, none.indices.len()), (Mode::Log, 0));
    }

    #[test]
    fn a_long_log_is_folded_into_the_pages_it_changed() {
        let base = image(40);
        let mut log = Log::default();
        let mut now = base.clone();
        let mut records = Vec::new();
        for k in 0..LOG_RECORDS {
            now[(k % 30) * PAGE] = 200 + k as u8;
            records.push(plan(&mut log, BTreeSet::from([(k % 30) as u32]), &now));
        }
        assert!(records.iter().all(|c| c.mode == Mode::Log));
        assert_eq!(log.records, LOG_RECORDS);
        assert_eq!(
            apply(base.clone(), &records.iter().collect::<Vec<_>>()),
            now
        );
        // The next commit, which also shrinks the image, folds: every page
        // the log or it changed, within the new size, at its own key.
        now.truncate(25 * PAGE);
        now[24 * PAGE + 1] = 9;
        let fold = plan(&mut log, BTreeSet::from([24]), &now);
        assert_eq!(fold.mode, Mode::Fold);
        assert_eq!(fold.indices, (0..25).collect::<Vec<u32>>());
        assert_eq!(log, Log::default());
        // The pages after the fold are the image.
        let mut folded = base;
        folded.truncate(now.len());
        for (k, &i) in fold.indices.iter().enumerate() {
            let at = i as usize * PAGE;
            folded[at..at + PAGE].copy_from_slice(&fold.bytes[k * PAGE..(k + 1) * PAGE]);
        }
        assert_eq!(folded, now);
    }

    #[test]
    fn a_log_past_its_byte_budget_folds_at_the_next_commit() {
        let pages = LOG_BYTES / PAGE + 10;
        let now = image(pages);
        let mut log = Log::default();
        let many: BTreeSet<u32> = (0..(LOG_BYTES / PAGE - 1) as u32).collect();
        assert_eq!(plan(&mut log, many, &now).mode, Mode::Log);
        let last = (pages - 2) as u32;
        let c = plan(&mut log, BTreeSet::from([last, last + 1]), &now);
        assert_eq!(c.mode, Mode::Fold);
        assert_eq!(c.indices.len(), LOG_BYTES / PAGE - 1 + 2);
    }
}
