//! Hard-coded secrets: private keys, the token formats of well-known
//! providers, passwords inside connection URLs, and secret-looking values
//! assigned to key-like names, in English and Russian.
//!
//! # How it matches
//!
//! - On a case-preserving copy of the text, not on the lower-cased one the
//!   threat rules read: token formats are case-sensitive (`AKIA[0-9A-Z]{16}`
//!   is an AWS key id, `akia…` is a word). The copy is NFKC (fullwidth
//!   letters become plain ones) with format characters removed (a zero-width
//!   space inside a key does not hide it), and keeps case and line breaks.
//!   Every byte of it maps back to the raw text, so findings point there.
//! - Provider formats ([`PATTERNS`]) are regular expressions that run only in
//!   short windows around their literal prefixes (`ghp_`, `AKIA`, `sk-ant-`),
//!   which substring search finds first; overlapping windows are merged, so a
//!   pattern reads each byte at most once whatever the text holds.
//! - Shapes without a literal prefix are small hand-written scanners that
//!   stop at each `:` (Telegram bot tokens), `.` (Discord bot tokens), `://`
//!   (URLs), `private key` (PEM armour) or separator (`name = value`) and
//!   read a bounded distance around it; a value already read is not read
//!   again for the next separator inside it.
//! - Split keys: when a line ends inside a token (a `\` continuation, or a
//!   hard wrap between two token characters), the token scanners run again on
//!   a copy with those line breaks removed, and keep only the matches that
//!   cross a removed break. A provider prefix must be whole on its line.
//!
//! # What is not a secret
//!
//! - Placeholders and redactions: a value containing `EXAMPLE`, `xxxx`,
//!   `****`, `...`, `your`, `<…>`, `${…}`, `{{…}}`, `changeme`,
//!   `placeholder`, `redacted`, starting with `$` or `%` (`$TOKEN`,
//!   `%API_KEY%`), or made of too few distinct characters (`ghp_000…`);
//!   references such as `process.env.X`, `secrets.X`, `op://…`.
//! - Identifiers and digests: UUIDs, hashes with an algorithm prefix
//!   (`sha256:…`, `sha512-…`), and git SHAs, fingerprints or base64 blobs
//!   that are not assigned to a key-like name.
//! - Public material: `ssh-ed25519 AAAA…`, `age1…` recipients, `PUBLIC KEY`
//!   and `CERTIFICATE` PEM blocks, and anything labelled public, fingerprint,
//!   hash, id, name, file, path, url, policy, length….
//! - A PEM header with no key under it (`-----BEGIN RSA PRIVATE KEY-----`
//!   in prose): a key needs a body line of at least 16 base64 characters.
//! - URLs without a password (`postgres://localhost/db`,
//!   `postgres://app@db/app`), or whose password is a placeholder or the user
//!   name again (`postgres:postgres`, `guest:guest`: development defaults).
//! - Names without a value (`OPENAI_API_KEY` in prose, `OPENAI_API_KEY=`).
//!
//! # Assignments
//!
//! A value after `=`, `:`, `:=`, `=>`, ` — `, ` is `, a `--flag ` (or just a
//! space after `password` or `пароль`) counts when the name before it is
//! key-like: its last part is `key`, `token`, `secret`, `password`,
//! `passwd`, `pwd`, `pass`, `auth`, `credentials`…, inside identifiers too
//! (`AWS_SECRET_ACCESS_KEY`, `clientSecret`, `db_pass`), or a Russian
//! `ключ`, `токен`, `секрет`, `пароль` in any form; a qualifier may follow it
//! (`API key (prod):`, `password for staging:`, `токен бота:`, `пароль от
//! базы:`).
//!
//! - `secret.generic`: a key, token or secret whose value has at least 20
//!   characters, a letter and a digit, a Shannon entropy of at least 3.5 bits
//!   per character, and does not read as words joined into a name
//!   (`prod_payment_service_2024`). Hex groups between colons (fingerprints,
//!   MAC addresses), e-mail addresses and paths are not.
//! - `secret.password`: passwords are short and low in entropy by nature, so
//!   entropy is not asked for. The value needs at least 6 characters and a
//!   digit, a symbol or a capital inside it: `password: hunter2` and
//!   `пароль: Qwerty!` are secrets. A plain word is not (`password:
//!   required`, `password: postgres`): it reads as prose or as a default, and
//!   "Password: stored in 1Password" must pass. Nor are dates and versions,
//!   kebab-case names (`stored-in-vault`), paths, or `pass`/`pwd` as English
//!   words ("first pass:"; `DB_PASS=` and `PASS=` are names).
//! - A value of a provider's shape next to the provider's name takes that
//!   provider's id: 40 base64 characters near `aws` (`secret.aws-secret-key`),
//!   a UUID near `heroku`, 24 letters and digits near `vercel` or
//!   `jira`/`confluence`/`atlassian`, 32 hex digits near `twilio`….

use std::borrow::Cow;
use std::sync::OnceLock;

use regex_lite::Regex;
use unicode_normalization::UnicodeNormalization;

use super::invisible::is_format;
use super::normalize::{has, Normalised, Pairs};
use super::rules::Pattern;
use super::{Category, Finding};

/// A provider format; `keywords` are literal prefixes (case-sensitive, in the
/// folded text), one of which every match starts with.
const fn shape(
    id: &'static str,
    keywords: &'static [&'static str],
    regex: &'static str,
) -> Pattern {
    Pattern {
        id,
        category: Category::Secret,
        keywords,
        also: &[],
        regex,
    }
}

/// The provider formats that have a literal prefix.
pub(super) const PATTERNS: &[Pattern] = &[
    shape(
        "secret.aws-access-key",
        &["AKIA", "ASIA", "ABIA", "ACCA"],
        r"(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}",
    ),
    shape(
        "secret.github-token",
        &["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"],
        r"gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9]{20,}_[A-Za-z0-9]{40,}",
    ),
    // A first part of one: a key cut in two (to get past a scanner) is
    // still a key.
    shape(
        "secret.github-token-part",
        &["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"],
        r"gh[pousr]_[A-Za-z0-9]{16,35}\b|github_pat_[A-Za-z0-9]{20,}_[A-Za-z0-9]{10,39}\b",
    ),
    shape(
        "secret.gitlab-token",
        &[
            "glpat-",
            "gldt-",
            "glrt-",
            "glptt-",
            "glsoat-",
            "glcbt-",
            "glft-",
            "glimt-",
            "glagent-",
            "gloas-",
            "glffct-",
            "GR1348941",
        ],
        r"(?:gl(?:pat|dt|rt|ptt|soat|cbt|ft|imt|agent|oas|ffct)-|GR1348941)[A-Za-z0-9_.-]{20,}",
    ),
    shape(
        "secret.slack-token",
        &["xox", "xapp-"],
        r"xox[abposre](?:\.xox[bp])?-[A-Za-z0-9-]{20,}|xapp-[0-9]-[A-Za-z0-9-]{20,}",
    ),
    shape(
        "secret.slack-webhook",
        &["hooks.slack.com/"],
        r"hooks\.slack\.com/(?:services|workflows|triggers)/T[A-Z0-9]{6,}/[A-Z0-9]{6,}/[A-Za-z0-9/_-]{16,}",
    ),
    shape(
        "secret.discord-webhook",
        &["discord.com/api/webhooks/", "discordapp.com/api/webhooks/"],
        r"discord(?:app)?\.com/api/webhooks/[0-9]{15,21}/[A-Za-z0-9_-]{50,}",
    ),
    shape(
        "secret.stripe-key",
        &["sk_live_", "sk_test_", "rk_live_", "rk_test_"],
        r"[sr]k_(?:live|test)_[A-Za-z0-9]{16,}",
    ),
    shape(
        "secret.stripe-webhook-secret",
        &["whsec_"],
        r"whsec_[A-Za-z0-9+/=]{24,}",
    ),
    shape(
        "secret.openai-key",
        &["sk-"],
        r"sk-(?:(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{40,}|[A-Za-z0-9]{32,})",
    ),
    shape(
        "secret.anthropic-key",
        &["sk-ant-"],
        r"sk-ant-[a-z]{3,6}[0-9]{2}-[A-Za-z0-9_-]{32,}",
    ),
    shape("secret.google-api-key", &["AIza"], r"AIza[A-Za-z0-9_-]{35}"),
    shape(
        "secret.gcp-oauth-secret",
        &["GOCSPX-"],
        r"GOCSPX-[A-Za-z0-9_-]{28}",
    ),
    shape(
        "secret.gcp-service-account",
        &["\"private_key\""],
        r#""private_key"\s*:\s*"-----BEGIN [A-Z ]*PRIVATE KEY-----(?:\\n|\s)*[A-Za-z0-9+/]{16}"#,
    ),
    shape(
        "secret.huggingface-token",
        &["hf_", "api_org_"],
        r"(?:hf_|api_org_)[A-Za-z0-9]{34}",
    ),
    shape("secret.npm-token", &["npm_"], r"npm_[A-Za-z0-9]{36}"),
    shape(
        "secret.pypi-token",
        &["pypi-AgE"],
        r"pypi-AgE[A-Za-z0-9_-]{50,}",
    ),
    shape(
        "secret.dockerhub-token",
        &["dckr_pat_", "dckr_oat_"],
        r"dckr_(?:pat|oat)_[A-Za-z0-9_-]{24,}",
    ),
    shape(
        "secret.sendgrid-key",
        &["SG."],
        r"SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}",
    ),
    shape("secret.twilio-api-key", &["SK"], r"SK[0-9a-f]{32}"),
    // An account SID is an identifier; with its auth token after it, a
    // credential (see `twilio_pair`).
    shape("secret.twilio-auth-token", &["AC"], r"AC[0-9a-f]{32}"),
    shape("secret.mailgun-key", &["key-"], r"key-[0-9a-f]{32}"),
    shape(
        "secret.shopify-token",
        &["shpat_", "shpss_", "shpca_", "shppa_"],
        r"shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}",
    ),
    shape(
        "secret.digitalocean-token",
        &["dop_v1_", "doo_v1_", "dor_v1_"],
        r"do[opr]_v1_[a-f0-9]{64}",
    ),
    shape("secret.heroku-key", &["HRKU-"], r"HRKU-[A-Za-z0-9_-]{40,}"),
    shape(
        "secret.vercel-token",
        &["vcp_", "vci_", "vca_", "vcr_", "vck_"],
        r"vc[piark]_[A-Za-z0-9]{24,}",
    ),
    shape("secret.netlify-token", &["nfp_"], r"nfp_[A-Za-z0-9_]{36,}"),
    shape(
        "secret.supabase-token",
        &["sbp_", "sb_secret_"],
        r"sbp_(?:v0_)?[a-f0-9]{40}|sb_secret_[A-Za-z0-9_-]{24,}",
    ),
    shape(
        "secret.linear-key",
        &["lin_api_", "lin_oauth_"],
        r"lin_api_[A-Za-z0-9]{40}|lin_oauth_[a-f0-9]{64}",
    ),
    shape(
        "secret.notion-token",
        &["secret_", "ntn_"],
        r"secret_[A-Za-z0-9]{43}|ntn_[0-9]{11}[A-Za-z0-9]{35}",
    ),
    shape(
        "secret.atlassian-token",
        &["ATATT3", "ATCTT3"],
        r"AT(?:ATT|CTT)3[A-Za-z0-9_=-]{100,}",
    ),
    shape(
        "secret.grafana-token",
        &["glc_", "glsa_", "eyJrIjoi"],
        r"glc_[A-Za-z0-9+/]{32,}={0,2}|glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}|eyJrIjoi[A-Za-z0-9]{60,}={0,2}",
    ),
    shape(
        "secret.postman-key",
        &["PMAK-"],
        r"PMAK-[a-f0-9]{24}-[a-f0-9]{34}",
    ),
    shape(
        "secret.vault-token",
        &["hvs.", "hvb.", "hvr."],
        r"hv[sbr]\.[A-Za-z0-9_-]{24,}",
    ),
    shape(
        "secret.doppler-token",
        &[
            "dp.pt.",
            "dp.st.",
            "dp.sa.",
            "dp.ct.",
            "dp.scim.",
            "dp.audit.",
        ],
        r"dp\.(?:pt|st|sa|ct|scim|audit)\.(?:[a-z0-9_-]{1,40}\.)?[A-Za-z0-9]{40,44}",
    ),
    shape(
        "secret.azure-connection-string",
        &["AccountKey=", "SharedAccessKey="],
        r"(?:AccountKey|SharedAccessKey)=[A-Za-z0-9+/]{40,}={0,2}",
    ),
    shape(
        "secret.azure-ad-client-secret",
        &["Q~"],
        r"[A-Za-z0-9_~.]{3}[0-9]Q~[A-Za-z0-9_~.-]{31,34}",
    ),
    shape(
        "secret.age-secret-key",
        &["AGE-SECRET-KEY-1"],
        r"AGE-SECRET-KEY-1[0-9A-Z]{58}",
    ),
    shape(
        "secret.databricks-token",
        &["dapi"],
        r"dapi[a-f0-9]{32}(?:-[0-9])?",
    ),
    shape(
        "secret.sentry-token",
        &["sntrys_", "sntryu_"],
        r"sntrys_eyJ[A-Za-z0-9+/=_-]{40,}|sntryu_[a-f0-9]{64}",
    ),
    shape("secret.newrelic-key", &["NRAK-"], r"NRAK-[A-Z0-9]{27}"),
    shape("secret.groq-key", &["gsk_"], r"gsk_[A-Za-z0-9]{48,}"),
    shape("secret.pulumi-token", &["pul-"], r"pul-[a-f0-9]{40}"),
    shape(
        "secret.planetscale-token",
        &["pscale_tkn_", "pscale_pw_", "pscale_oauth_"],
        r"pscale_(?:tkn|pw|oauth)_[A-Za-z0-9_.-]{32,}",
    ),
    shape(
        "secret.tailscale-key",
        &["tskey-"],
        r"tskey-[a-z]+-[A-Za-z0-9]{8,}-[A-Za-z0-9]{16,}",
    ),
    shape(
        "secret.langsmith-key",
        &["lsv2_pt_", "lsv2_sk_"],
        r"lsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}",
    ),
    shape(
        "secret.rubygems-key",
        &["rubygems_"],
        r"rubygems_[a-f0-9]{48}",
    ),
    shape("secret.alibaba-key", &["LTAI"], r"LTAI[A-Za-z0-9]{20}"),
    shape(
        "secret.yandex-key",
        &["AQVN", "YCAJ", "YCM", "y0_", "y1_", "y2_", "y3_", "t1."],
        r"AQVN[A-Za-z0-9_-]{35,38}|YC(?:AJ|M)[A-Za-z0-9_-]{35,38}|y[0-3]_[A-Za-z0-9_-]{55,199}|t1\.[A-Za-z0-9_-]+={0,2}\.[A-Za-z0-9_-]{86}={0,2}|t1\.9euel[A-Za-z0-9_-]{80,}",
    ),
    shape(
        "secret.vk-token",
        &["vk1.a."],
        r"vk1\.a\.[A-Za-z0-9_-]{60,}",
    ),
    shape(
        "secret.jwt",
        &["eyJ"],
        r"eyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}",
    ),
];

const PRIVATE_KEY: &str = "secret.private-key";
const TELEGRAM: &str = "secret.telegram-bot-token";
const DISCORD_BOT: &str = "secret.discord-bot-token";
const URL_PASSWORD: &str = "secret.url-password";
const GENERIC: &str = "secret.generic";
const PASSWORD: &str = "secret.password";
const AWS_SECRET: &str = "secret.aws-secret-key";

/// The ids of the hand-written scanners (the others are in [`PATTERNS`]).
#[cfg(test)]
const SCANNED: &[&str] = &[
    PRIVATE_KEY,
    TELEGRAM,
    DISCORD_BOT,
    URL_PASSWORD,
    GENERIC,
    PASSWORD,
    AWS_SECRET,
];

/// The patterns compiled, in [`PATTERNS`] order.
pub(super) fn compiled() -> &'static [Regex] {
    static CELL: OnceLock<Vec<Regex>> = OnceLock::new();
    CELL.get_or_init(|| {
        PATTERNS
            .iter()
            .map(|p| Regex::new(p.regex).unwrap_or_else(|e| panic!("pattern {}: {e}", p.id)))
            .collect()
    })
}

/// The patterns' keywords lower-cased, to ask the normalised text whether a
/// keyword can occur before searching for it.
fn lowered() -> &'static [Vec<String>] {
    static CELL: OnceLock<Vec<Vec<String>>> = OnceLock::new();
    CELL.get_or_init(|| {
        PATTERNS
            .iter()
            .map(|p| p.keywords.iter().map(|k| k.to_lowercase()).collect())
            .collect()
    })
}

/// How a pattern is looked for around each of its keywords.
struct Reach {
    /// Bytes a match may start before its keyword.
    back: usize,
    /// Bytes a match may reach from its start; longer matches are cut, which
    /// only shortens the range reported.
    span: usize,
    /// A cheap test before the regex runs: right after the keyword, at least
    /// `min` bytes of `class`, not all alike (`AKIAAKIAAKIA…` is no key).
    class: fn(u8) -> bool,
    min: usize,
}

fn alnum(c: u8) -> bool {
    c.is_ascii_alphanumeric()
}
fn upper_digit(c: u8) -> bool {
    c.is_ascii_uppercase() || c.is_ascii_digit()
}
fn hex(c: u8) -> bool {
    c.is_ascii_hexdigit()
}
fn base64(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'+' | b'/' | b'=' | b'_' | b'-')
}
fn token(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.' | b'~')
}
fn path(c: u8) -> bool {
    token(c) || c == b'/'
}
fn anything(_: u8) -> bool {
    true
}

fn reach(id: &str) -> Reach {
    let (back, span, class, min): (usize, usize, fn(u8) -> bool, usize) = match id {
        "secret.aws-access-key" => (0, 64, upper_digit, 16),
        "secret.alibaba-key" => (0, 64, alnum, 20),
        "secret.yandex-key" => (0, 512, token, 35),
        "secret.newrelic-key" => (0, 64, upper_digit, 27),
        "secret.age-secret-key" => (0, 96, upper_digit, 58),
        "secret.github-token"
        | "secret.github-token-part"
        | "secret.stripe-key"
        | "secret.vercel-token" => (0, 512, alnum, 16),
        "secret.huggingface-token" | "secret.npm-token" | "secret.notion-token" => {
            (0, 128, alnum, 34)
        }
        "secret.linear-key" | "secret.groq-key" => (0, 128, alnum, 40),
        "secret.twilio-api-key"
        | "secret.twilio-auth-token"
        | "secret.mailgun-key"
        | "secret.shopify-token"
        | "secret.databricks-token" => (0, 64, hex, 32),
        "secret.pulumi-token" => (0, 64, hex, 40),
        "secret.digitalocean-token" | "secret.rubygems-key" => (0, 96, hex, 48),
        "secret.postman-key" | "secret.langsmith-key" => (0, 96, token, 43),
        "secret.slack-webhook" | "secret.discord-webhook" => (0, 512, path, 30),
        "secret.jwt" => (0, 8192, token, 10),
        "secret.sentry-token" => (0, 8192, base64, 43),
        "secret.azure-ad-client-secret" => (4, 48, token, 31),
        "secret.azure-connection-string"
        | "secret.stripe-webhook-secret"
        | "secret.grafana-token"
        | "secret.atlassian-token" => (0, 512, base64, 24),
        "secret.gcp-service-account" => (0, 512, anything, 0),
        _ => (0, 512, token, 16),
    };
    Reach {
        back,
        span,
        class,
        min,
    }
}

/// Whether the keyword ending at `after` can start a match of `reach`.
fn gate(b: &[u8], after: usize, reach: &Reach) -> bool {
    let need = reach.min.max(24);
    let run = b[after..]
        .iter()
        .take(need)
        .take_while(|&&c| (reach.class)(c))
        .count();
    let sample = &b[after..after + run.min(24)];
    run >= reach.min && (reach.min == 0 || distinct_bytes(sample) >= (sample.len() / 3).min(5))
}

/// The secrets in a text: `raw` is the scanned text, `norm` its normalised
/// copy (used only to rule keywords out quickly).
pub(super) fn find(raw: &str, norm: &Normalised, pairs: &Pairs, findings: &mut Vec<Finding>) {
    let view = fold(raw);
    let mut hits = Hits::default();
    shapes(&view, norm, pairs, &mut hits);
    bare_tokens(&view, &mut hits);
    private_keys(&view, &mut hits);
    url_passwords(&view, &mut hits);
    assignments(&view, &mut hits);
    if let Some(joined) = join_lines(&view) {
        shapes(&joined, norm, pairs, &mut hits);
        bare_tokens(&joined, &mut hits);
    }
    if let Some(joined) = ungroup(&view) {
        shapes_in(&joined, None, &mut hits);
    }
    findings.extend(hits.0);
}

/// Provider prefixes strong enough that what follows them is read through
/// the separators a person put in "for readability", and whether a `-`
/// between groups is one (it is not where the token's own alphabet has it).
const GROUPED: &[(&str, bool)] = &[
    ("AKIA", true),
    ("ASIA", true),
    ("ghp_", true),
    ("gho_", true),
    ("ghs_", true),
    ("github_pat_", true),
    ("hf_", true),
    ("npm_", true),
    ("dop_v1_", true),
    ("glpat", false),
    ("sk-", false),
    ("xoxb-", false),
    ("xoxp-", false),
    ("AIza", false),
];

/// A byte of a group of a key cut into groups: a base64 byte other than
/// `-`, which [`ungroup`] judges as a separator or as the token's own.
fn group_byte(c: u8) -> bool {
    base64(c) && c != b'-'
}

/// A copy of `view` with the separators removed that cut a token after a
/// provider prefix into groups: `AKIA-MXJ2-QITX-…`, `AKIA BMMJ HDVL …`,
/// `glpat.-BTHc.gPNUP.…`, `sk-proj-yQdE hWaNZk9-…`. At least two cuts, each
/// a single `.`, a `-` where the token has none, or one or two spaces
/// between token characters, within 200 bytes of the prefix. `None` when
/// there are none.
fn ungroup(view: &Folded) -> Option<Folded<'static>> {
    let text: &str = &view.text;
    let b = text.as_bytes();
    let mut cuts: Vec<(usize, usize)> = Vec::new();
    for &(prefix, dash) in GROUPED {
        // Each byte is walked once per prefix: a prefix inside a run
        // already walked is part of it.
        let mut walked = 0;
        for (p, _) in text.match_indices(prefix) {
            if p < walked || (p > 0 && (b[p - 1].is_ascii_alphanumeric() || b[p - 1] == b'_')) {
                continue;
            }
            let mut found = Vec::new();
            let (mut i, limit) = (p + prefix.len(), (p + 200).min(b.len()));
            while i < limit {
                let c = b[i];
                let gap = match c {
                    b'.' => 1,
                    b'-' if dash => 1,
                    b' ' if b.get(i + 1) == Some(&b' ') => 2,
                    b' ' => 1,
                    _ if group_byte(c) || c == b'-' => {
                        i += 1;
                        continue;
                    }
                    _ => break,
                };
                // The group after the cut reads as a piece of a token (a
                // digit or a capital in it, or two characters at most), not
                // as a word of the sentence: "ghp_ followed by anything".
                let next = &b[(i + gap).min(b.len())..];
                let group = next.iter().take_while(|&&c| group_byte(c)).count();
                let piece = group <= 2
                    || next[..group]
                        .iter()
                        .any(|c| c.is_ascii_digit() || c.is_ascii_uppercase());
                let joined = i > 0 && group_byte(b[i - 1]) && group > 0 && piece;
                // `glpat.-…`: a dot before the token's own dash.
                let before_dash = c == b'.' && b.get(i + 1) == Some(&b'-');
                if !(joined || before_dash) {
                    break;
                }
                found.push((i, i + gap));
                i += gap;
            }
            walked = i;
            if found.len() >= 2 {
                cuts.extend(found);
            }
        }
    }
    if cuts.is_empty() {
        return None;
    }
    cuts.sort_unstable();
    Some(without(view, cuts))
}

/// A copy of `view` without the byte ranges `cuts` (sorted; one that
/// starts inside an earlier one is skipped), each removal recorded as a
/// join for [`Hits::add`].
fn without(view: &Folded, cuts: Vec<(usize, usize)>) -> Folded<'static> {
    let len = view.text.len();
    let mut text = String::with_capacity(len);
    let mut origin = Vec::with_capacity(len);
    let mut joins = Vec::with_capacity(cuts.len());
    let mut from = 0;
    for (start, end) in cuts.into_iter().chain([(len, len)]) {
        if start < from {
            continue;
        }
        text.push_str(&view.text[from..start]);
        origin.extend((from..start).map(|i| view.origin_of(i)));
        joins.push(text.len());
        from = end;
    }
    joins.pop();
    Folded {
        text: Cow::Owned(text),
        lower: String::new(),
        origin: Some(origin),
        joins,
    }
}

// --- the folded copy ----------------------------------------------------

/// A case-preserving copy of the scanned text that secrets are matched on.
struct Folded<'a> {
    text: Cow<'a, str>,
    /// `text` with ASCII and Cyrillic lower-cased, byte for byte as long (a
    /// joined copy leaves it empty: only the token scanners read it).
    lower: String,
    /// For each byte of `text`, the range of the raw character it came from;
    /// `None` when `text` is the raw text.
    origin: Option<Vec<(u32, u32)>>,
    /// In a copy with line breaks removed, where each removal happened.
    joins: Vec<usize>,
}

impl Folded<'_> {
    /// The raw byte range of `start..end`.
    fn raw_range(&self, start: usize, end: usize) -> (usize, usize) {
        let Some(origin) = &self.origin else {
            return (start, end);
        };
        let from = origin.get(start).map_or(0, |r| r.0 as usize);
        let to = end
            .checked_sub(1)
            .and_then(|last| origin.get(last))
            .map_or(from, |r| r.1 as usize);
        (from, to)
    }

    fn origin_of(&self, i: usize) -> (u32, u32) {
        match &self.origin {
            Some(origin) => origin[i],
            None => (i as u32, i as u32 + 1),
        }
    }

    /// Whether `start..end` spans a removed line break.
    fn crosses_join(&self, start: usize, end: usize) -> bool {
        let next = self.joins.partition_point(|&j| j <= start);
        self.joins.get(next).is_some_and(|&j| j < end)
    }
}

fn fold(raw: &str) -> Folded<'_> {
    if raw.is_ascii() {
        return Folded {
            text: Cow::Borrowed(raw),
            lower: raw.to_ascii_lowercase(),
            origin: None,
            joins: Vec::new(),
        };
    }
    let mut text = String::with_capacity(raw.len());
    let mut lower = String::with_capacity(raw.len());
    let mut origin = Vec::with_capacity(raw.len());
    for (i, c) in raw.char_indices() {
        if is_format(c) {
            continue;
        }
        let range = (i as u32, (i + c.len_utf8()) as u32);
        // ASCII and Cyrillic are already NFKC; skip the decomposer.
        if c.is_ascii() || ('\u{0400}'..='\u{04FF}').contains(&c) {
            keep(c, range, &mut text, &mut lower, &mut origin);
            continue;
        }
        for n in std::iter::once(c).nfkc() {
            if !is_format(n) {
                keep(n, range, &mut text, &mut lower, &mut origin);
            }
        }
    }
    Folded {
        text: Cow::Owned(text),
        lower,
        origin: Some(origin),
        joins: Vec::new(),
    }
}

fn keep(
    c: char,
    range: (u32, u32),
    text: &mut String,
    lower: &mut String,
    origin: &mut Vec<(u32, u32)>,
) {
    let mut l = c.to_lowercase();
    let l = match (l.next(), l.next()) {
        (Some(l), None) if l.len_utf8() == c.len_utf8() => l,
        _ => c,
    };
    text.push(c);
    lower.push(l);
    origin.extend(std::iter::repeat_n(range, c.len_utf8()));
}

/// Characters a token is made of, for deciding where a line break cuts one.
fn is_join_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'+' | b'/' | b'=' | b'.')
}

/// A copy of `view` with the line breaks that cut a token removed: a `\`
/// continuation before a token character, or a line that ends in at least
/// four token characters followed by one that starts with a token character
/// (indentation skipped). `None` when there is no such break.
fn join_lines(view: &Folded) -> Option<Folded<'static>> {
    let b = view.text.as_bytes();
    let mut cuts: Vec<(usize, usize)> = Vec::new();
    for (i, _) in b.iter().enumerate().filter(|&(_, &c)| c == b'\n') {
        let mut end = i;
        if end > 0 && b[end - 1] == b'\r' {
            end -= 1;
        }
        let continued = end > 0 && b[end - 1] == b'\\';
        if continued {
            end -= 1;
        }
        let tail = b[..end]
            .iter()
            .rev()
            .take(4)
            .take_while(|&&c| is_join_char(c))
            .count();
        if tail < if continued { 1 } else { 4 } {
            continue;
        }
        let mut next = i + 1;
        while next < b.len() && next - i <= 64 && matches!(b[next], b' ' | b'\t') {
            next += 1;
        }
        if next < b.len() && is_join_char(b[next]) {
            cuts.push((end, next));
        }
    }
    if cuts.is_empty() {
        return None;
    }
    Some(without(view, cuts))
}

/// The findings so far, one per id.
#[derive(Default)]
struct Hits(Vec<Finding>);

impl Hits {
    fn has(&self, id: &str) -> bool {
        self.0.iter().any(|f| f.id == id)
    }

    /// Records `id` at `start..end` of `view`. False when the hit does not
    /// count and the caller should keep looking: in a joined copy, a match
    /// that crosses no removed line break was already judged on the text.
    fn add(&mut self, view: &Folded, id: &'static str, start: usize, end: usize) -> bool {
        if self.has(id) {
            return true;
        }
        if !view.joins.is_empty() && !view.crosses_join(start, end) {
            return false;
        }
        let (start, end) = view.raw_range(start, end);
        self.0.push(Finding {
            id,
            category: Category::Secret,
            start,
            end,
            code_point: None,
        });
        true
    }
}

fn floor(text: &str, mut i: usize) -> usize {
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn ceil(text: &str, mut i: usize) -> usize {
    while !text.is_char_boundary(i) {
        i += 1;
    }
    i
}

// --- provider formats ---------------------------------------------------

/// Runs [`PATTERNS`] in windows around their keywords.
fn shapes(view: &Folded, norm: &Normalised, pairs: &Pairs, hits: &mut Hits) {
    shapes_in(view, Some((norm, pairs)), hits);
}

/// [`shapes`], with the cheap check that a pattern's keyword occurs in the
/// scanned text (`pre`) or without it (a copy whose separators were
/// removed holds keywords the text does not: `glpat.-` read as `glpat-`).
fn shapes_in(view: &Folded, pre: Option<(&Normalised, &Pairs)>, hits: &mut Hits) {
    let text: &str = &view.text;
    let b = text.as_bytes();
    let mut at = Vec::new();
    let mut windows: Vec<(usize, usize)> = Vec::new();
    for ((p, re), lower) in PATTERNS.iter().zip(compiled()).zip(lowered()) {
        if hits.has(p.id) {
            continue;
        }
        let reach = reach(p.id);
        at.clear();
        for (keyword, lower) in p.keywords.iter().zip(lower) {
            if pre.is_some_and(|(norm, pairs)| !has(&norm.text, pairs, lower)) {
                continue;
            }
            at.extend(text.match_indices(keyword).map(|(i, _)| i).filter(|&i| {
                let glued = reach.back == 0
                    && i > 0
                    && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_');
                !glued && gate(b, i + keyword.len(), &reach)
            }));
        }
        if at.is_empty() {
            continue;
        }
        at.sort_unstable();
        windows.clear();
        for &a in &at {
            let (start, end) = (
                a.saturating_sub(reach.back),
                (a + reach.span).min(text.len()),
            );
            match windows.last_mut() {
                Some((_, last)) if start <= *last => *last = end.max(*last),
                _ => windows.push((start, end)),
            }
        }
        'windows: for &(start, end) in &windows {
            let (start, end) = (floor(text, start), ceil(text, end));
            for m in re.find_iter(&text[start..end]) {
                let found = accept(p.id, text, start + m.start(), start + m.end());
                if found.is_some_and(|(s, e)| hits.add(view, p.id, s, e)) {
                    break 'windows;
                }
            }
        }
    }
}

/// The storage emulator's account key, published in Azure's documentation.
const AZURE_EMULATOR_KEY: &str = "Eby8vdM02xNOcqFl";

/// Whether a pattern's match `start..end` is a secret, and its range.
fn accept(id: &str, text: &str, start: usize, end: usize) -> Option<(usize, usize)> {
    let b = text.as_bytes();
    let mut end = end;
    // A sentence's full stop after a token whose alphabet has dots.
    while end > start + 1 && b[end - 1] == b'.' {
        end -= 1;
    }
    let before = start.checked_sub(1).map(|i| b[i]);
    // The service-account match stops inside the key's body.
    let open_ended = id == "secret.gcp-service-account";
    if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == b'_')
        || (!open_ended && b.get(end).is_some_and(|c| c.is_ascii_alphanumeric()))
    {
        return None;
    }
    let token = &text[start..end];
    let plain = |s: &str| s.bytes().all(|c| c.is_ascii_alphanumeric());
    match id {
        "secret.azure-connection-string" => {
            let key = start + token.find('=')? + 1;
            let value = &text[key..end];
            return (!value.starts_with(AZURE_EMULATOR_KEY) && plausible(value))
                .then_some((key, end));
        }
        "secret.twilio-auth-token" => {
            return twilio_pair(b, start, end).filter(|_| plausible(token))
        }
        "secret.azure-ad-client-secret"
            if before.is_some_and(|c| matches!(c, b'~' | b'.' | b'-'))
                || !(has_digit(token) && mixed_case(token)) =>
        {
            return None
        }
        // The legacy form has no marker after `sk-`: ask for all three
        // character classes so that `sk-` and a long word is not a key.
        "secret.openai-key" if plain(&token[3..]) && !(mixed_case(token) && has_digit(token)) => {
            return None
        }
        "secret.huggingface-token"
        | "secret.vault-token"
        | "secret.notion-token"
        | "secret.vercel-token"
            if !mixed_case(token) =>
        {
            return None
        }
        _ => {}
    }
    plausible(token).then_some((start, end))
}

/// The range of a Twilio account SID at `start..end` and the auth token (32
/// hex digits) that follows it within 80 bytes (`AC…:token`, or the next
/// line of an `.env`).
fn twilio_pair(b: &[u8], start: usize, end: usize) -> Option<(usize, usize)> {
    let hex = |c: &u8| c.is_ascii_digit() || (b'a'..=b'f').contains(c);
    let limit = (end + 80).min(b.len());
    let mut i = end;
    while i < limit {
        if !b[i].is_ascii_alphanumeric() {
            i += 1;
            continue;
        }
        let run = b[i..]
            .iter()
            .take(33)
            .take_while(|c| c.is_ascii_alphanumeric())
            .count();
        if run == 32 && b[i..i + 32].iter().all(hex) {
            return Some((start, i + 32));
        }
        i += b[i..]
            .iter()
            .take_while(|c| c.is_ascii_alphanumeric())
            .count();
    }
    None
}

/// Whether a token can be a real credential rather than a placeholder: no
/// placeholder words or masks, enough distinct characters, and some entropy.
fn plausible(token: &str) -> bool {
    const MASKS: &[&str] = &[
        "EXAMPLE",
        "example",
        "Example",
        "xxxx",
        "XXXX",
        "****",
        "YOUR",
        "your",
        "Your",
        "PLACEHOLDER",
        "placeholder",
        "REDACTED",
        "redacted",
        "abcdefgh",
        "ABCDEFGH",
        // The Bot API documentation's sample token.
        "ABC-DEF1234ghIkl",
    ];
    if MASKS.iter().any(|m| token.contains(m)) {
        return false;
    }
    distinct(token) >= (token.len() / 3).min(10) && (token.len() < 20 || entropy(token) >= 3.0)
}

// --- tokens without a prefix -------------------------------------------

fn is_token_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'-'
}

/// Finds Telegram bot tokens (`123456789:AA…`, at a `:`) and Discord bot
/// tokens (`MTk….Gx2z0A.…`, at a `.`).
fn bare_tokens(view: &Folded, hits: &mut Hits) {
    let b = view.text.as_bytes();
    let mut telegram = !hits.has(TELEGRAM);
    let mut discord = !hits.has(DISCORD_BOT);
    for (i, &c) in b.iter().enumerate() {
        if c == b':' && telegram {
            if let Some((s, e)) = telegram_at(b, i) {
                telegram = !hits.add(view, TELEGRAM, s, e);
            }
        } else if c == b'.' && discord {
            if let Some((s, e)) = discord_at(b, i) {
                discord = !hits.add(view, DISCORD_BOT, s, e);
            }
        }
        if !telegram && !discord {
            break;
        }
    }
}

/// A Telegram bot token around the `:` at `colon`: the bot's 8 to 10 digit
/// id, then 35 characters of secret.
fn telegram_at(b: &[u8], colon: usize) -> Option<(usize, usize)> {
    let start = colon
        - b[..colon]
            .iter()
            .rev()
            .take(11)
            .take_while(|c| c.is_ascii_digit())
            .count();
    if !(8..=10).contains(&(colon - start)) {
        return None;
    }
    // `…/bot123456789:AA…` in an API URL.
    if start > 0 && is_token_byte(b[start - 1]) && !b[..start].ends_with(b"bot") {
        return None;
    }
    let end = colon
        + 1
        + b[colon + 1..]
            .iter()
            .take(36)
            .take_while(|&&c| is_token_byte(c))
            .count();
    // The whole secret is 35 characters; a first part of one (a key cut in
    // two to get past a scanner) starts with its `AA` all the same.
    let n = end - colon - 1;
    if n != 35 && !((16..35).contains(&n) && b[colon + 1..].starts_with(b"AA")) {
        return None;
    }
    let secret = std::str::from_utf8(&b[colon + 1..end]).ok()?;
    (mixed_case(secret) && entropy(secret) >= 3.5 && !wordy(secret) && plausible(secret))
        .then_some((start, end))
}

/// A Discord bot token around the first `.` at `dot`: the bot's id in base64
/// (it starts with `M`, `N` or `O`), a 6-character timestamp and a 27 to 40
/// character HMAC.
fn discord_at(b: &[u8], dot: usize) -> Option<(usize, usize)> {
    let start = dot
        - b[..dot]
            .iter()
            .rev()
            .take(29)
            .take_while(|c| c.is_ascii_alphanumeric())
            .count();
    if !(23..=28).contains(&(dot - start))
        || !matches!(b[start], b'M' | b'N' | b'O')
        || (start > 0 && is_token_byte(b[start - 1]))
    {
        return None;
    }
    let second = dot + 7;
    if b.get(second) != Some(&b'.') || !b[dot + 1..second].iter().all(|&c| is_token_byte(c)) {
        return None;
    }
    let end = second
        + 1
        + b[second + 1..]
            .iter()
            .take(41)
            .take_while(|&&c| is_token_byte(c))
            .count();
    if !(27..=40).contains(&(end - second - 1)) {
        return None;
    }
    let id = std::str::from_utf8(&b[start..dot]).ok()?;
    let mac = std::str::from_utf8(&b[second + 1..end]).ok()?;
    (has_digit(id) && mixed_case(mac) && entropy(mac) >= 3.5 && !wordy(mac) && plausible(mac))
        .then_some((start, end))
}

// --- private keys -------------------------------------------------------

/// PEM and OpenSSH private key blocks of every kind (`-----BEGIN [RSA |
/// EC | DSA | OPENSSH | ENCRYPTED | PGP …]PRIVATE KEY[ BLOCK]-----`), SSH2
/// (`---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----`) and PuTTY
/// (`Private-Lines:`) keys, each with a key under the armour.
fn private_keys(view: &Folded, hits: &mut Hits) {
    let (text, lower) = (view.text.as_ref(), view.lower.as_str());
    for (p, m) in lower.match_indices("private key") {
        let Some(start) = armour_start(lower, p) else {
            continue;
        };
        let mut h = p + m.len();
        if lower[h..].starts_with(" block") {
            h += " block".len();
        }
        if !(lower[h..].starts_with("-----") || lower[h..].starts_with(" ----")) {
            continue;
        }
        if let Some(end) = key_body(text, h + 5) {
            hits.add(view, PRIVATE_KEY, start, end);
            return;
        }
    }
    let b = text.as_bytes();
    for (p, m) in lower.match_indices("private-lines:") {
        let mut i = p + m.len();
        while i < b.len() && (b[i] == b' ' || b[i].is_ascii_digit()) {
            i += 1;
        }
        if let Some(end) = key_body(text, i) {
            hits.add(view, PRIVATE_KEY, p, end);
            return;
        }
    }
}

/// Where the armour line that reaches `private key` at `p` starts.
fn armour_start(lower: &str, p: usize) -> Option<usize> {
    let from = floor(lower, p.saturating_sub(48));
    let begin = from + lower[from..p].rfind("begin ")?;
    if !lower[begin + 6..p]
        .bytes()
        .all(|c| c.is_ascii_alphanumeric() || c == b' ')
    {
        return None;
    }
    let head = &lower[..begin];
    (head.ends_with("-----") || head.ends_with("---- ")).then(|| begin - 5)
}

/// The end of a key's first body line when base64 follows the armour at
/// `i`, after line breaks, `\n` escapes (a key inside a JSON string) and up
/// to two `Name: value` header lines (`Proc-Type:`, `Version:`).
fn key_body(text: &str, mut i: usize) -> Option<usize> {
    let b = text.as_bytes();
    for _ in 0..3 {
        loop {
            match b.get(i) {
                Some(c) if c.is_ascii_whitespace() => i += 1,
                Some(b'\\') if matches!(b.get(i + 1), Some(b'n' | b'r')) => i += 2,
                _ => break,
            }
        }
        let run = b[i..]
            .iter()
            .take(64)
            .take_while(|&&c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'/' | b'='))
            .count();
        if run >= 16 {
            return Some(i + run);
        }
        let name = b[i..]
            .iter()
            .take(32)
            .take_while(|&&c| c.is_ascii_alphanumeric() || c == b'-')
            .count();
        if name == 0 || b.get(i + name) != Some(&b':') {
            return None;
        }
        i += 1 + b[i..].iter().take(160).position(|&c| c == b'\n')?;
    }
    None
}

// --- URLs with a password ----------------------------------------------

/// Schemes whose URLs carry credentials: databases, brokers, mail, file
/// transfer and the web.
const URL_SCHEMES: &[&str] = &[
    "postgres",
    "postgresql",
    "mysql",
    "mariadb",
    "mongodb",
    "mongodb+srv",
    "redis",
    "rediss",
    "amqp",
    "amqps",
    "mssql",
    "sqlserver",
    "oracle",
    "clickhouse",
    "cockroachdb",
    "couchdb",
    "neo4j",
    "neo4j+s",
    "bolt",
    "nats",
    "mqtt",
    "mqtts",
    "kafka",
    "ldap",
    "ldaps",
    "ftp",
    "ftps",
    "sftp",
    "smtp",
    "smtps",
    "imap",
    "imaps",
    "ssh",
    "http",
    "https",
];

/// `scheme://user:password@host` with a real password.
fn url_passwords(view: &Folded, hits: &mut Hits) {
    let (text, lower) = (view.text.as_ref(), view.lower.as_str());
    let b = text.as_bytes();
    for (p, _) in text.match_indices("://") {
        let scheme = b[..p]
            .iter()
            .rev()
            .take(24)
            .take_while(|&&c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'.' | b'-'))
            .count();
        if !URL_SCHEMES.contains(&&lower[p - scheme..p]) {
            continue;
        }
        let from = p + 3;
        let (mut colon, mut at) = (None, None);
        for (j, &c) in b[from..].iter().enumerate().take(256) {
            match c {
                // A `#` after the user's colon is the password's, not a
                // fragment (`admin:*Xk#25@db`): a fragment follows a path.
                b'#' if colon.is_some() && at.is_none() => {}
                b'/' | b'?' | b'#' | b'"' | b'\'' | b'`' | b'<' | b'>' | b'\\' | b'(' | b')' => {
                    break
                }
                c if c.is_ascii_whitespace() => break,
                b'@' => at = Some(from + j),
                b':' if colon.is_none() => colon = Some(from + j),
                _ => {}
            }
        }
        let (Some(colon), Some(at)) = (colon, at) else {
            continue;
        };
        if colon < at && url_password(&text[from..colon], &text[colon + 1..at]) {
            hits.add(view, URL_PASSWORD, colon + 1, at);
            return;
        }
    }
}

fn url_password(user: &str, password: &str) -> bool {
    const WORDS: &[&str] = &["password", "pass", "passwd", "pwd", "pw", "secret", "token"];
    let lower = password.to_lowercase();
    password.chars().count() >= 3
        && lower != user.to_lowercase()
        && !WORDS.contains(&lower.as_str())
        && !placeholder(password)
}

// --- assignments --------------------------------------------------------

/// What a key-like name names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Password,
    Secret,
}

/// The key-like name before a separator.
struct Label {
    kind: Kind,
    /// Where its first word starts.
    start: usize,
}

/// A value after a separator: `start..end`, and where reading may resume.
struct Value {
    start: usize,
    end: usize,
    resume: usize,
}

/// Finds `name = value` pairs whose name is key-like and whose value is a
/// secret (see the module docs).
fn assignments(view: &Folded, hits: &mut Hits) {
    let (b, l) = (view.text.as_bytes(), view.lower.as_bytes());
    let mut skip_to = 0;
    let mut i = 0;
    while i < b.len() {
        let Some((s, e)) = separator(b, l, i) else {
            i += 1;
            continue;
        };
        i = e;
        if s < skip_to {
            continue;
        }
        let Some(label) = label_before(view, s) else {
            continue;
        };
        let Some(mut value) = value_after(view, e) else {
            continue;
        };
        // `пароль от базы: root / w3aj6^Dj`: a login, then its password.
        if label.kind == Kind::Password && view.text[value.end..].starts_with(" / ") {
            if let Some(second) = value_after(view, value.end + 3) {
                value = second;
            }
        }
        skip_to = value.resume;
        if let Some(id) = judge(view, &label, s, &value, hits) {
            hits.add(view, id, value.start, value.end);
        }
    }
}

/// The separator that starts at `i`, as its byte range.
fn separator(b: &[u8], l: &[u8], i: usize) -> Option<(usize, usize)> {
    let next = b.get(i + 1).copied();
    let prev = i.checked_sub(1).map(|p| b[p]);
    match b[i] {
        b'=' => {
            if next == Some(b'=') || matches!(prev, Some(b'=' | b'!' | b'<' | b'>')) {
                return None;
            }
            Some((i, if next == Some(b'>') { i + 2 } else { i + 1 }))
        }
        b':' => {
            if next == Some(b':') || prev == Some(b':') || b[i + 1..].starts_with(b"//") {
                return None;
            }
            Some((i, if next == Some(b'=') { i + 2 } else { i + 1 }))
        }
        0xE2 if prev == Some(b' ')
            && (b[i..].starts_with("—".as_bytes()) || b[i..].starts_with("–".as_bytes())) =>
        {
            Some((i, i + 3))
        }
        b' ' if l[i..].starts_with(b" is ") => Some((i + 1, i + 3)),
        // `login admin, password Adm1n!2024`: a password needs no separator
        // (its value rule is strict enough; a key's or token's is not).
        b' ' if next.is_some_and(|c| {
            c.is_ascii_alphanumeric() || matches!(c, b'"' | b'\'' | 0xD0 | 0xD1)
        }) && ["password", "passwd", "пароль"]
            .iter()
            .any(|w| l[..i].ends_with(w.as_bytes())) =>
        {
            Some((i, i + 1))
        }
        b' ' if flag_before(b, i) => Some((i, i + 1)),
        // `private key 0x4c0883a6…`: a wallet's key written after its name.
        b' ' if l[i + 1..].starts_with(b"0x")
            && [
                "private key",
                "private_key",
                "privkey",
                "secret key",
                "приватный ключ",
            ]
            .iter()
            .any(|w| l[..i].ends_with(w.as_bytes())) =>
        {
            Some((i, i + 1))
        }
        _ => None,
    }
}

/// Whether the word before the space at `i` is a `--long-flag`.
fn flag_before(b: &[u8], i: usize) -> bool {
    if i == 0
        || !b[i - 1].is_ascii_alphanumeric()
        || b.get(i + 1)
            .is_none_or(|&c| c == b'-' || c.is_ascii_whitespace())
    {
        return false;
    }
    let word = b[..i]
        .iter()
        .rev()
        .take(41)
        .take_while(|&&c| is_token_byte(c))
        .count();
    let start = i - word;
    word <= 40
        && b[start..].starts_with(b"--")
        && (start == 0 || matches!(b[start - 1], b' ' | b'\t' | b'\n' | b'`' | b'"' | b'\''))
}

/// Stems that a key-like name holds, to skip the word analysis for the
/// others.
const KEY_STEMS: &[&str] = &[
    "key",
    "token",
    "secret",
    "pass",
    "pwd",
    "auth",
    "cred",
    "pat",
    "bearer",
    "ключ",
    "токен",
    "секрет",
    "парол",
];

/// The key-like name that ends just before the separator at `s`: up to five
/// words (identifiers, or Russian or English words) on the same line.
fn label_before(view: &Folded, s: usize) -> Option<Label> {
    let text: &str = &view.text;
    let limit = s.saturating_sub(96);
    let before = |p: usize| (p > limit).then(|| text[..p].chars().next_back()).flatten();
    let mut p = s;
    for _ in 0..4 {
        match before(p) {
            Some(' ' | '\t') => p -= 1,
            _ => break,
        }
    }
    if let Some(c @ ('"' | '\'' | '`')) = before(p) {
        p -= c.len_utf8();
    }
    // A parenthetical between the name and its separator (`password for
    // the db (prod, user billing):`) qualifies the name: read past it.
    if before(p) == Some(')') {
        let from = ceil(text, limit.max(p.saturating_sub(64)));
        let open = text[from..p - 1].rfind(['(', '\n']).map(|k| from + k);
        if let Some(o) = open.filter(|&o| text.as_bytes()[o] == b'(') {
            p = o;
            while matches!(before(p), Some(' ' | '\t')) {
                p -= 1;
            }
        }
    }
    let mut words = [(0, 0); 5];
    let mut count = 0;
    loop {
        let mut gap = 0;
        while gap < 2 && matches!(before(p), Some(' ' | '(' | ')')) {
            p -= 1;
            gap += 1;
        }
        if gap == 0 && count > 0 {
            break;
        }
        let end = p;
        while let Some(c) = before(p) {
            if c.is_alphanumeric() || matches!(c, '_' | '-' | '.') {
                p -= c.len_utf8();
            } else {
                break;
            }
        }
        if p == end {
            break;
        }
        words[count] = (p, end);
        count += 1;
        if count == words.len() {
            break;
        }
    }
    let words = &mut words[..count];
    let &(start, _) = words.last()?;
    if !has_key_stem(&view.lower.as_bytes()[start..s]) {
        return None;
    }
    words.reverse();
    let words: Vec<Vec<String>> = words
        .iter()
        .map(|&(a, b)| {
            let word = &text[a..b];
            let mut parts = parts(word);
            // `pass` and `pwd` alone are English words ("first pass:") unless
            // written as a variable (`PASS=`); inside one (`db_pass`) they
            // name a password.
            if let [part] = &mut parts[..] {
                if matches!(part.as_str(), "pass" | "pwd") && word.chars().any(char::is_lowercase) {
                    part.insert(0, '~');
                }
            }
            parts
        })
        .collect();
    label_kind(&words).map(|kind| Label { kind, start })
}

/// Whether lower-cased text holds one of [`KEY_STEMS`].
fn has_key_stem(lower: &[u8]) -> bool {
    (0..lower.len()).any(|i| {
        matches!(
            lower[i],
            b'k' | b't' | b's' | b'p' | b'a' | b'c' | b'b' | 0xD0 | 0xD1
        ) && KEY_STEMS
            .iter()
            .any(|k| lower[i..].starts_with(k.as_bytes()))
    })
}

/// The parts of an identifier, lower-cased: split at `_`, `-`, `.` and case
/// changes (`AWS_SECRET_ACCESS_KEY`, `clientSecret`, `APIKey`).
fn parts(word: &str) -> Vec<String> {
    let chars: Vec<char> = word.chars().collect();
    let mut out = Vec::new();
    let mut cur = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_alphanumeric() {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            continue;
        }
        let prev = i
            .checked_sub(1)
            .map(|p| chars[p])
            .filter(|p| p.is_alphanumeric());
        let split = prev.is_some_and(|p| {
            (p.is_lowercase() && c.is_uppercase())
                || (p.is_uppercase()
                    && c.is_uppercase()
                    && chars.get(i + 1).is_some_and(|n| n.is_lowercase()))
        });
        if split && !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
        cur.extend(c.to_lowercase());
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// The kind of secret a part names, if it is key-like.
fn key_kind(part: &str) -> Option<Kind> {
    let part = part.trim_end_matches(|c: char| c.is_ascii_digit());
    if part.starts_with("парол") {
        return Some(Kind::Password);
    }
    if ["ключ", "токен", "секрет"]
        .iter()
        .any(|s| part.starts_with(s))
    {
        return Some(Kind::Secret);
    }
    match part {
        "password" | "passwd" | "pwd" | "pass" | "passphrase" | "passcode" => Some(Kind::Password),
        "key" | "apikey" | "token" | "secret" | "auth" | "credential" | "credentials" | "creds"
        | "cred" | "pat" | "bearer" | "authorization" => Some(Kind::Secret),
        _ if part.ends_with("password") || part.ends_with("passwd") => Some(Kind::Password),
        _ if [
            "token",
            "secret",
            "apikey",
            "accesskey",
            "secretkey",
            "privatekey",
            "authkey",
        ]
        .iter()
        .any(|s| part.len() > s.len() && part.ends_with(s)) =>
        {
            Some(Kind::Secret)
        }
        _ => None,
    }
}

/// Words that make a name something other than a secret (`public key`,
/// `token_id`, `password policy`), in English and Russian stems.
const NOT_SECRET: &[&str] = &[
    "public",
    "pub",
    "fingerprint",
    "fingerprints",
    "fpr",
    "hash",
    "hashed",
    "hashes",
    "digest",
    "checksum",
    "sha",
    "sha1",
    "sha256",
    "sha512",
    "md5",
    "example",
    "examples",
    "sample",
    "placeholder",
    "dummy",
    "format",
    "prefix",
    "suffix",
    "policy",
    "policies",
    "rotation",
    "manager",
    "length",
    "len",
    "size",
    "regex",
    "pattern",
    "hint",
    "hints",
    "expiry",
    "expires",
    "expiration",
    "ttl",
    "url",
    "uri",
    "endpoint",
    "file",
    "path",
    "dir",
    "name",
    "id",
    "ids",
    "type",
    "header",
    "field",
    "kid",
    "uuid",
    "guid",
    "version",
    "count",
    "limit",
    "scope",
    "scopes",
    "reset",
    "required",
    "rule",
    "rules",
    "strength",
    "requirement",
    "requirements",
];
const NOT_SECRET_RU: &[&str] = &[
    "публичн",
    "открыт",
    "отпечат",
    "хеш",
    "хэш",
    "имя",
    "имен",
    "путь",
    "пут",
    "файл",
    "ссылк",
    "формат",
    "политик",
    "длин",
    "идентификатор",
];
/// Kinds of key that are not credentials (`ssh key`, `primary key`).
const NOT_A_SECRET_KEY: &[&str] = &[
    "ssh",
    "host",
    "gpg",
    "pgp",
    "public",
    "pub",
    "primary",
    "foreign",
    "sort",
    "partition",
    "cache",
    "composite",
    "unique",
    "idempotency",
    "hot",
    "shortcut",
    "map",
    "dict",
    "object",
    "registry",
    "age",
    "recipient",
    "deploy",
];
/// Parts that may follow the key-like one in a name (`SECRET_KEY_BASE`,
/// `API key (prod)`).
const QUALIFIERS: &[&str] = &[
    "base",
    "value",
    "val",
    "str",
    "string",
    "b64",
    "base64",
    "hex",
    "raw",
    "prod",
    "production",
    "dev",
    "development",
    "staging",
    "stage",
    "stg",
    "test",
    "testing",
    "qa",
    "uat",
    "live",
    "local",
    "ci",
    "old",
    "new",
    "current",
    "main",
    "backup",
    "secondary",
    "api",
    "bot",
    "admin",
    "root",
    "user",
    "service",
    "app",
];
const PREPOSITIONS: &[&str] = &["for", "of", "to", "on", "at", "in", "from"];

fn is_qualifier(part: &str) -> bool {
    QUALIFIERS.contains(&part)
        || part.bytes().all(|c| c.is_ascii_digit())
        || (part.len() <= 3
            && part.starts_with('v')
            && part[1..].bytes().all(|c| c.is_ascii_digit()))
}

/// Whether the words of a label (each split into parts) name a secret, and
/// which kind.
fn label_kind(words: &[Vec<String>]) -> Option<Kind> {
    let (w, k, kind) = words.iter().enumerate().rev().find_map(|(w, parts)| {
        parts
            .iter()
            .enumerate()
            .rev()
            .find_map(|(k, part)| key_kind(part).map(|kind| (w, k, kind)))
    })?;
    let key = words[w][k].as_str();
    let all = || words.iter().flatten().map(String::as_str);
    if all().any(|p| NOT_SECRET.contains(&p) || NOT_SECRET_RU.iter().any(|s| p.starts_with(s))) {
        return None;
    }
    if (key == "key" || key.starts_with("ключ"))
        && words[..=w]
            .iter()
            .flatten()
            .any(|p| NOT_A_SECRET_KEY.contains(&p.as_str()))
    {
        return None;
    }
    if !words[w][k + 1..].iter().all(|p| is_qualifier(p)) {
        return None;
    }
    let tail = &words[w + 1..];
    if tail.len() > 3 {
        return None;
    }
    // Russian names put qualifiers after the noun (`токен бота`, `ключ API`).
    if key.chars().next().is_some_and(|c| !c.is_ascii()) {
        return Some(kind);
    }
    let mut after_preposition = false;
    for word in tail.iter().flatten() {
        if PREPOSITIONS.contains(&word.as_str()) {
            after_preposition = true;
        } else if !after_preposition && !is_qualifier(word) {
            return None;
        }
    }
    Some(kind)
}

const TYPOGRAPHIC_QUOTES: &[char] = &['«', '»', '“', '”', '„', '‘', '’'];

/// Bytes that end an unquoted value.
fn ends_value(c: u8) -> bool {
    c.is_ascii_whitespace()
        || matches!(
            c,
            b'"' | b'\'' | b'`' | b',' | b';' | b'&' | b'<' | b'>' | b')' | b']' | b'}' | b'|'
        )
}

/// The value after the separator that ends at `e`: a quoted string on the
/// same line, or the run up to a space or a delimiter. `Bearer`, `Basic` and
/// `token` before it are schemes, not the value.
fn value_after(view: &Folded, e: usize) -> Option<Value> {
    let (b, l) = (view.text.as_bytes(), view.lower.as_bytes());
    let blanks = |mut i: usize| {
        while i < b.len() && i - e < 8 && matches!(b[i], b' ' | b'\t') {
            i += 1;
        }
        i
    };
    let mut i = blanks(e);
    for scheme in [&b"bearer "[..], b"basic ", b"token "] {
        if l[i..].starts_with(scheme) {
            i = blanks(i + scheme.len());
            break;
        }
    }
    let &quote = b.get(i)?;
    if matches!(quote, b'"' | b'\'' | b'`') {
        let start = i + 1;
        let close = start
            + b[start..]
                .iter()
                .position(|&c| c == quote || c == b'\n')
                .unwrap_or(b.len() - start);
        if b.get(close) != Some(&quote) {
            return Some(Value {
                start,
                end: start,
                resume: close,
            });
        }
        return Some(Value {
            start,
            end: close,
            resume: close + 1,
        });
    }
    let run = i + b[i..]
        .iter()
        .position(|&c| ends_value(c))
        .unwrap_or(b.len() - i);
    // Typographic quotes (`«…»`, `“…”`) and a sentence's punctuation are
    // not part of the value.
    let text = &view.text[i..run];
    let inner = text.trim_start_matches(TYPOGRAPHIC_QUOTES);
    let start = i + text.len() - inner.len();
    let inner = inner.trim_end_matches(|c: char| {
        TYPOGRAPHIC_QUOTES.contains(&c) || matches!(c, '.' | ',' | ':' | ';')
    });
    Some(Value {
        start,
        end: start + inner.len(),
        resume: run,
    })
}

/// The id a value assigned to `label` is found under, if it is a secret
/// not found yet.
fn judge(
    view: &Folded,
    label: &Label,
    sep: usize,
    value: &Value,
    hits: &Hits,
) -> Option<&'static str> {
    let v = &view.text[value.start..value.end];
    if v.is_empty() {
        return None;
    }
    if let Some(id) = provider_by_name(view, label, sep, v) {
        return Some(id);
    }
    let (id, secret) = match label.kind {
        Kind::Password => (PASSWORD, password_value as fn(&str) -> bool),
        Kind::Secret => (GENERIC, random_value as fn(&str) -> bool),
    };
    // Values in a provider's format are judged by its pattern.
    (!hits.has(id) && secret(v) && !has_known_prefix(v)).then_some(id)
}

/// Whether a value starts like a provider format: those are judged by
/// their own pattern.
fn has_known_prefix(v: &str) -> bool {
    v.starts_with("eyJ")
        || v.starts_with("-----")
        || PATTERNS
            .iter()
            .flat_map(|p| p.keywords)
            .any(|k| k.len() >= 3 && v.starts_with(k))
}

/// A value of a provider's own shape next to the provider's name (on the
/// label's line): the formats with no prefix of their own.
fn provider_by_name(view: &Folded, label: &Label, sep: usize, v: &str) -> Option<&'static str> {
    let all = |f: fn(u8) -> bool| v.bytes().all(f);
    let hex = |c: u8| c.is_ascii_digit() || (b'a'..=b'f').contains(&c);
    let aws = v.len() == 40
        && all(|c| c.is_ascii_alphanumeric() || c == b'+' || c == b'/')
        && mixed_case(v)
        && has_digit(v);
    let uuid = is_uuid(v);
    let alnum24 = v.len() == 24 && all(|c| c.is_ascii_alphanumeric()) && mixed_case(v);
    let netlify = (40..=64).contains(&v.len()) && all(is_token_byte) && mixed_case(v);
    let hex32 = v.len() == 32 && all(hex);
    let mailgun = v.len() == 50
        && v.as_bytes()[32] == b'-'
        && v.as_bytes()[41] == b'-'
        && v.bytes().filter(|&c| c != b'-').all(hex);
    if !(aws || uuid || alnum24 || netlify || hex32 || mailgun)
        || !plausible(v)
        || has_known_prefix(v)
    {
        return None;
    }
    let lower = view.lower.as_str();
    let from = floor(lower, label.start.saturating_sub(160));
    let line = from + lower[from..label.start].rfind('\n').map_or(0, |n| n + 1);
    let context = &lower[line..sep];
    let near = |words: &[&str]| words.iter().any(|w| context.contains(w));
    if aws && near(&["aws", "akia", "asia", "secret_access", "secretaccess"]) {
        Some(AWS_SECRET)
    } else if uuid && near(&["heroku"]) {
        Some("secret.heroku-key")
    } else if alnum24 && near(&["vercel"]) {
        Some("secret.vercel-token")
    } else if alnum24 && near(&["atlassian", "jira", "confluence"]) {
        Some("secret.atlassian-token")
    } else if netlify && near(&["netlify"]) {
        Some("secret.netlify-token")
    } else if hex32 && near(&["twilio"]) {
        Some("secret.twilio-auth-token")
    } else if (hex32 || mailgun) && near(&["mailgun"]) {
        Some("secret.mailgun-key")
    } else {
        None
    }
}

/// Whether a value assigned to a password-like name is a password (see the
/// module docs).
fn password_value(v: &str) -> bool {
    const MANAGERS: &[&str] = &[
        "1password",
        "onepassword",
        "lastpass",
        "bitwarden",
        "keepass",
        "keychain",
    ];
    if !(6..=128).contains(&v.chars().count()) {
        return false;
    }
    let symbol = v
        .chars()
        .any(|c| !c.is_alphanumeric() && !matches!(c, '-' | '_' | '.'));
    let inner_capital =
        v.chars().skip(1).any(char::is_uppercase) && v.chars().any(char::is_lowercase);
    if !(has_digit(v) || symbol || inner_capital) {
        return false;
    }
    let lower = v.to_lowercase();
    !MANAGERS.iter().any(|m| lower.contains(m))
        && !placeholder(v)
        && !path_like(v)
        && !joined_words(v)
        && !date_like(v)
        && !is_public_key(v)
}

/// Whether a value assigned to a key, token or secret name looks random
/// enough to be one (see the module docs).
fn random_value(v: &str) -> bool {
    (20..=512).contains(&v.chars().count())
        && has_digit(v)
        && v.chars().any(char::is_alphabetic)
        && !email_like(v)
        && entropy(v) >= 3.5
        && !wordy(v)
        && !placeholder(v)
        && !path_like(v)
        && !is_digest(v)
        && !is_public_key(v)
}

/// `name@host.tld`: an address, not a key (a key may hold an `@`).
fn email_like(v: &str) -> bool {
    match v.split_once('@') {
        Some((_, host)) => {
            !host.contains('@')
                && host.rsplit_once('.').is_some_and(|(_, tld)| {
                    tld.len() >= 2 && tld.bytes().all(|c| c.is_ascii_alphabetic())
                })
        }
        None => false,
    }
}

/// Placeholders, masks and references to a secret kept elsewhere.
fn placeholder(v: &str) -> bool {
    const MARKS: &[&str] = &[
        "${",
        "{{",
        "}}",
        "example",
        "xxxx",
        "****",
        "...",
        "…",
        "your",
        "placeholder",
        "redacted",
        "changeme",
        "change_me",
        "change-me",
        "replace",
        "insert",
        "dummy",
        "sample",
        "todo",
        "fixme",
        "process.env",
        "os.environ",
        "getenv",
        "env.",
        "secrets.",
        "vault:",
        "op://",
        "arn:aws",
        // The Bot API documentation's sample token.
        "abc-def1234ghikl",
        "<",
        ">",
    ];
    let lower = v.to_lowercase();
    // `%VAR%`, `%(name)s`, `%s`: a variable; a `%` that opens a password
    // (`%G_nqIF*s7…`) is one of its characters.
    let percent_var = v.starts_with('%')
        && ((v.len() > 1 && v.ends_with('%'))
            || v.starts_with("%(")
            || v.starts_with("%{")
            || v.len() <= 2);
    percent_var
        || v.starts_with(['$', '{', '<', '[', '('])
        || v.starts_with("**")
        || v.chars().all(|c| c == '*')
        || MARKS.iter().any(|m| lower.contains(m))
        || few_chars(v)
        || sample_basic_auth(v)
}

/// Base64 of a documentation's sample credentials (`user:password`,
/// `admin:secret`): a basic-auth header's example, not a login.
fn sample_basic_auth(v: &str) -> bool {
    const SAMPLE: &[&str] = &[
        "password",
        "pass",
        "passwd",
        "pwd",
        "secret",
        "changeme",
        "example",
        "test",
        "1234",
        "12345",
        "123456",
        "qwerty",
        "opensesame",
    ];
    let Some(text) = super::decode::base64(v.as_bytes()).and_then(|b| String::from_utf8(b).ok())
    else {
        return false;
    };
    text.split_once(':').is_some_and(|(user, pass)| {
        user.len() <= 32
            && !user.chars().any(char::is_control)
            && (SAMPLE.contains(&pass.to_lowercase().as_str()) || pass.is_empty())
    })
}

/// File system paths and URLs (`/run/secrets/db`, `kv/data/prod/db`).
fn path_like(v: &str) -> bool {
    v.starts_with(['/', '~'])
        || v.starts_with("./")
        || v.starts_with("../")
        || v.contains("://")
        || v.contains('\\')
        || (v.contains('/')
            && v.split('/').all(|s| {
                !s.is_empty()
                    && s.bytes().all(|c| {
                        c.is_ascii_lowercase()
                            || c.is_ascii_digit()
                            || matches!(c, b'-' | b'_' | b'.')
                    })
            }))
}

/// Lower-case words joined by `-`, `_` or `.` (`stored-in-vault`): a name.
fn joined_words(v: &str) -> bool {
    let mut words = v.split(['-', '_', '.']);
    v.contains(['-', '_', '.']) && words.all(|w| !w.is_empty() && w.chars().all(char::is_lowercase))
}

/// Dates, times, versions and addresses: digits and `-./:` only.
fn date_like(v: &str) -> bool {
    v.contains(['-', '.', '/', ':'])
        && v.chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '-' | '.' | '/' | ':'))
}

/// A digest with its algorithm (`sha256:…`, `sha512-…`), a UUID, or hex
/// groups between colons (a fingerprint, a MAC or IPv6 address).
fn is_digest(v: &str) -> bool {
    const ALGORITHMS: &[&str] = &[
        "sha1", "sha224", "sha256", "sha384", "sha512", "md5", "blake2b", "blake3",
    ];
    let lower = v.to_ascii_lowercase();
    let hex_groups = v.split(':').count() >= 4
        && v.split(':')
            .all(|g| g.len() <= 4 && g.bytes().all(|c| c.is_ascii_hexdigit()));
    is_uuid(v)
        || hex_groups
        || ALGORITHMS.iter().any(|a| {
            lower
                .strip_prefix(a)
                .is_some_and(|rest| rest.starts_with([':', '-', '=']))
        })
}

fn is_uuid(v: &str) -> bool {
    v.len() == 36
        && v.bytes().enumerate().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => c == b'-',
            _ => c.is_ascii_hexdigit(),
        })
}

/// SSH, age and nostr public keys.
fn is_public_key(v: &str) -> bool {
    [
        "ssh-", "ecdsa-", "sk-ssh-", "age1", "AAAAC3", "AAAAB3", "AAAAE2", "npub1",
    ]
    .iter()
    .any(|p| v.starts_with(p))
}

// --- measures -----------------------------------------------------------

fn has_digit(s: &str) -> bool {
    s.bytes().any(|c| c.is_ascii_digit())
}

fn mixed_case(s: &str) -> bool {
    s.chars().any(char::is_uppercase) && s.chars().any(char::is_lowercase)
}

/// Whether `s` is made of at most two characters (`••••••`, `abababab`).
fn few_chars(s: &str) -> bool {
    let mut seen: [Option<char>; 2] = [None; 2];
    s.chars().all(|c| {
        if seen.contains(&Some(c)) {
            return true;
        }
        match seen.iter_mut().find(|x| x.is_none()) {
            Some(slot) => {
                *slot = Some(c);
                true
            }
            None => false,
        }
    })
}

fn distinct(s: &str) -> usize {
    distinct_bytes(s.as_bytes())
}

fn distinct_bytes(b: &[u8]) -> usize {
    let mut seen = [0u64; 4];
    for &c in b {
        seen[usize::from(c >> 6)] |= 1 << (c & 63);
    }
    seen.iter().map(|w| w.count_ones() as usize).sum()
}

/// Shannon entropy in bits per byte.
fn entropy(s: &str) -> f64 {
    let mut counts = [0u32; 256];
    for c in s.bytes() {
        counts[usize::from(c)] += 1;
    }
    let n = s.len() as f64;
    counts
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| {
            let p = f64::from(c) / n;
            -p * p.log2()
        })
        .sum()
}

/// Whether a value reads as words joined into a name
/// (`prod_payment_service_2024`, `RefreshTokenProvider`) rather than random
/// characters: its letter runs, split at lower-to-upper changes, average at
/// least four letters.
fn wordy(v: &str) -> bool {
    let (mut words, mut letters) = (0, 0);
    let mut prev: Option<char> = None;
    for c in v.chars() {
        if c.is_alphabetic() {
            letters += 1;
            if !prev.is_some_and(|p| p.is_alphabetic() && !(p.is_lowercase() && c.is_uppercase())) {
                words += 1;
            }
        }
        prev = Some(c);
    }
    words > 0 && letters >= 4 * words
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::super::cost::cpu_cost;
    use super::super::normalize::normalise;
    use super::*;

    /// The secret ids found in `text` by the whole scanner.
    fn secrets(text: &str) -> Vec<&'static str> {
        crate::scan::rules_verdict(text)
            .findings
            .iter()
            .filter(|f| f.category == Category::Secret)
            .map(|f| f.id)
            .collect()
    }

    #[track_caller]
    fn finds(id: &str, text: &str) {
        let got = secrets(text);
        assert!(got.contains(&id), "{id} not found in {text:?}: {got:?}");
    }

    #[track_caller]
    fn clean(text: &str) {
        let got = secrets(text);
        assert!(got.is_empty(), "{text:?} flagged: {got:?}");
    }

    /// The raw text of the finding `id` in `text`.
    fn found<'a>(id: &str, text: &'a str) -> &'a str {
        let v = crate::scan::rules_verdict(text);
        let f = v
            .findings
            .iter()
            .find(|f| f.id == id)
            .unwrap_or_else(|| panic!("{id} not in {text:?}"));
        &text[f.start..f.end]
    }

    #[test]
    fn ids_are_unique_and_namespaced() {
        let mut seen = std::collections::HashSet::new();
        for id in PATTERNS.iter().map(|p| p.id).chain(SCANNED.iter().copied()) {
            assert!(id.starts_with("secret."), "{id}");
            assert!(seen.insert(id), "duplicate {id}");
        }
    }

    // The fake tokens below are random characters in each provider's shape,
    // split after the prefix so that secret scanners leave this file alone.

    #[test]
    fn provider_formats_are_found() {
        let cases: &[(&str, &str)] = &[
            ("secret.aws-access-key", concat!("aws_access_key_id = AKIA", "UJZDE8GXD6NCF10E")),
            ("secret.aws-access-key", concat!("temporary: ASIA", "UJZDE8GXD6NCF10E")),
            ("secret.github-token", concat!("ghp", "_sMehGAkWvj7FAc9QeWJKY40uvSwMFLZDe1f8")),
            ("secret.github-token", concat!("GH_TOKEN=gho", "_rESQedUStPKR0CsTy4Qwb8DwkNhFdnXsiVpz")),
            (
                "secret.github-token",
                concat!("github", "_pat_11Z5FK2Z9RI19R0WYOJFLJ_oQoaF1LlqsajAIxNKu8iS2G8NPRVdD53X83RZJzzzzgEOzdmenCkhvMdgaK"),
            ),
            ("secret.gitlab-token", concat!("glpat", "-tmUdjAWtGSU8po_799Nk")),
            ("secret.gitlab-token", concat!("deploy token gldt", "-jgVvVqE1SkHbn88HxjSI")),
            ("secret.gitlab-token", concat!("runner: glrt", "-6bWHtP3fS2qHx6kwXoII")),
            ("secret.gitlab-token", concat!("trigger glptt", "-a767c76fb008f86bebb2737f6a6f0fb23c6f5da2")),
            ("secret.slack-token", concat!("xoxb", "-676122202972-9975288200182-B3m03nbqnsGpWLuqIA1id6Vw")),
            (
                "secret.slack-token",
                concat!("xoxp", "-798682828807-290222791805-8887180334018-e02ea68ef786e4d3cea27d26934b484e"),
            ),
            (
                "secret.slack-webhook",
                concat!("https://hooks.slack", ".com/services/TOGZ5KOK1/B6ZV0MWUFXB/vJDCTbyvHNsG9eh6Yo4gfqrc"),
            ),
            (
                "secret.discord-webhook",
                concat!(
                    "https://discord",
                    ".com/api/webhooks/242646288975140261/IclHkCiHp6bR1IqfEouHgxzNNAL5wIScGebcy8F5n3-YNBDRzrZSgqbjG3uhkWKFLf6x"
                ),
            ),
            (
                "secret.discord-bot-token",
                concat!("DISCORD_TOKEN=MjQ3MDQ1NTg1MzA0MzUyMDU2", ".k8JzFa.lHlsZfYcMMDktXP-tKsf2rcDkdfrUnW5gcF_Ha"),
            ),
            ("secret.telegram-bot-token", concat!("bot: 7188181741", ":AAHEAD6-Wj9KfzjsQGMrb9h_ImB_LK777pz")),
            (
                "secret.telegram-bot-token",
                concat!("https://api.telegram.org/bot7188181741", ":AAHEAD6-Wj9KfzjsQGMrb9h_ImB_LK777pz/getMe"),
            ),
            ("secret.stripe-key", concat!("sk_live", "_tf7EbsDe0G9Cryn687neLfjV")),
            ("secret.stripe-key", concat!("rk_test", "_Hq8xiM0OGr4hTxoF54Fzbka8")),
            ("secret.stripe-webhook-secret", concat!("whsec", "_FRCztUjAwyuh1vauWv1zh87mTa5Vsqxe")),
            (
                "secret.openai-key",
                concat!(
                    "sk-proj",
                    "-YXjU2JgJngKtFI3OyV2dZAkg05rK_gqv81RKMGHZEM9YpvujA-C5Q52ryFT3BlbkFJlwRlOEVHzc0X0AWIRh-JUqBlIFXZ53Ncqe28_ajY75FnCttn6kfaqDeMqG"
                ),
            ),
            (
                "secret.openai-key",
                concat!(
                    "sk-svcacct",
                    "-3omjMyXHCabM6JOF8EFd0Nhcy-1kGD2VD-eR1UYzaLiA-zNyD7CHLn-xC_T3BlbkFJ1hsYgBds1ghxY5OokvQyx7eNWVQ4vnakJkS1pAWTN3lg8zV5yPU8d0FZfW"
                ),
            ),
            ("secret.openai-key", concat!("sk", "-cDeZ6dqmVe5Mvxrv99NcT3BlbkFJqVTSu7rtaUWM6ZO88eb0")),
            (
                "secret.anthropic-key",
                concat!(
                    "sk-ant",
                    "-api03-Dn87XG3-q-xbMtEPO6UkzYuF0ie9Pu2njHkAm1-5wDr16EpLLJIVGHz4FxFEtKyPiYGFDm7ena8D5VfLDpgyyjVw5HanSAA"
                ),
            ),
            (
                "secret.anthropic-key",
                concat!(
                    "sk-ant",
                    "-admin01-BeVRsfAGeAbP0VxNjAe-9i0mYtluYI0KN1gNT11cUzYZAa3u2olZU6uqbgsYlVvsSKuvinX_zMqf9OgXluCZz8xBfZuXTAA"
                ),
            ),
            ("secret.google-api-key", concat!("AIza", "XcgCYf4gEFCfuwOa6M1G-iFXC0NZ_cFlwvT")),
            ("secret.gcp-oauth-secret", concat!("client_secret: GOCSPX", "-z0psundmjv_73hbPsETJveImiSy5")),
            (
                "secret.gcp-service-account",
                concat!(
                    "{\"type\": \"service_account\", \"private_key_id\": \"1f2e\", \"private_key\": ",
                    "\"-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\\n-----END PRIVATE KEY-----\\n\"}"
                ),
            ),
            ("secret.huggingface-token", concat!("HF_TOKEN=hf", "_hjpUmcJWRcQuhyMDJOXtPAtLpByQxCGClb")),
            ("secret.npm-token", concat!("//registry.npmjs.org/:_authToken=npm", "_aNFDpCWNX0D1lZEzgeiwBxfZCGGQccOif7Uu")),
            (
                "secret.pypi-token",
                concat!("password = pypi", "-AgEIcHlwaS5vcmckgWrdioyq_KvCiSGuPJ6sG9AHEOVezxZuJPWvHogU5nGYVHWVsUQk4DwgLGNOaeCtL31Ug"),
            ),
            ("secret.dockerhub-token", concat!("docker login -p dckr", "_pat_q_DfcgaTMnTC0MrAU8urbFt5mis")),
            ("secret.sendgrid-key", concat!("SG", ".IZHbhS4-FvafhdZxEuhnbz.s0z1wNiMg9aW37k5wCnHDepQHgI3HLBkbvHEzuPyXQE")),
            ("secret.twilio-api-key", concat!("TWILIO_API_KEY=SK", "cff00d796c25410335b400141212b62c")),
            (
                "secret.twilio-auth-token",
                concat!("TWILIO_ACCOUNT_SID=AC", "376631129f34369aad80b891baf90d0d\nTWILIO_AUTH_TOKEN=3bf16295d06910bf3f5fb85967f532f3"),
            ),
            ("secret.twilio-auth-token", concat!("twilio_auth_token: ", "3bf16295d06910bf3f5fb85967f532f3")),
            ("secret.mailgun-key", concat!("api: key", "-ab3cc2d0b698d5c7e41ba4ea5ee874ae")),
            ("secret.shopify-token", concat!("shpat", "_7689447ab57a683536c4499d863386ce")),
            ("secret.shopify-token", concat!("shpss", "_10cd79e048c07dd7753eda83d7c58dfe")),
            ("secret.digitalocean-token", concat!("dop_v1", "_0d5a0cf318656b3e6f0bade65c3b188cc102ddb8379c7ce65426f74bde94fb78")),
            ("secret.heroku-key", concat!("HRKU", "-AAWG2x9aJTFMP9_2kUtMXhkPrSbbAjLGmsDx5StAZvlMz-Bk4opH1Dr8-h97")),
            ("secret.heroku-key", "HEROKU_API_KEY=7dca9202-b34e-44fa-a4f8-c385e7cc7215"),
            ("secret.vercel-token", "VERCEL_TOKEN=pFkIM3Vak1uDSKFQs1DxBA9R"),
            ("secret.netlify-token", concat!("nfp", "_elOxOPbbNcRV7vZgGEFW5jcnTAOivg3QxvEX")),
            ("secret.supabase-token", concat!("sbp", "_69dad8199bfca8b6f3a6a9421cc1c93016f1c426")),
            ("secret.linear-key", concat!("lin_api", "_cQODOWlgQl3cAXg67Pax30iYtJTq3tlAcubBKPL7")),
            ("secret.notion-token", concat!("secret", "_6dFKHc0hXZAKS6zCeaRyML8QjEXAJgfPEn5jOaBaaRQ")),
            ("secret.notion-token", concat!("ntn", "_11312704937UVl7dxXVTS2jUWfsOJTFDQ74q69dTcada4P")),
            (
                "secret.atlassian-token",
                concat!(
                    "ATATT3",
                    "xFfGF0kXNNv_hOV48vsoUu19X5IQLJhQbtN2FWXWD5KaPHI2ufKssJ-Sk_WzDNhY7AGbX6lTiDYHP9zyBylxLUTZtFf-VnV7ktOdSJcmeA_BHJ2m5qGeRzxWkdgeV6_iYplGODlYx5uVECweGThdgH9hmsOazM4n8PVGXpV9Wv4Esb7yeuCjVr5mXc=E2VUO4HX"
                ),
            ),
            ("secret.atlassian-token", "JIRA_API_TOKEN=pFkIM3Vak1uDSKFQs1DxBA9R"),
            ("secret.grafana-token", concat!("glc", "_jvoVdlTCJ4jC3jrAApjbrK1svZkqFguD5EhjGdO5YQ7nJE1s")),
            ("secret.grafana-token", concat!("glsa", "_hqWmxBqp7pgysA5kd1UsjObCZGvGiCaY_95bd1d68")),
            ("secret.postman-key", concat!("PMAK", "-54575622f856469602d1ba9f-20df4875b15b0be23b7ac193fe04072755")),
            ("secret.vault-token", concat!("VAULT_TOKEN=hvs", ".gtqJ09bbg7SVmqb1MOKDHpSC")),
            (
                "secret.vault-token",
                concat!(
                    "hvb",
                    ".nSmwfIp7-JoppZrDDs7YvcX1eYgURZEQ3PZgPsTF2bUnxiP3zcCr1Y6ffeIIemGpb3EfKoNSvphIk7s4pqL0KJFlK6CXzU6M98NdFQCyXYbTuEPP_IKBLhcuiS4hX4TnCt1RTrzJm8"
                ),
            ),
            ("secret.doppler-token", concat!("dp.pt", ".rYOTO6TiA3gaAXJLhFz9KjA2Yr3NMhy2CSDsUwswzHJ")),
            (
                "secret.azure-connection-string",
                concat!(
                    "DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=",
                    "XPa/W4MxMs3WDlQPFPA2bdgG/MN33X7TfS5biDm0VZty1+Z4RlvUOUjNwoLR1uLAy0xhnTf0baNaMYmbdzw/Is==;EndpointSuffix=core.windows.net"
                ),
            ),
            ("secret.azure-ad-client-secret", concat!("client_secret=X6w8", "Q~l1YCJlS24R.5-gA2-q_yfHwuEHFhvTS0lz")),
            ("secret.age-secret-key", concat!("AGE-SECRET-KEY", "-1YLASZXHV9YVZEH2WPYM4SWP2CRBVJPIFMR9I34PKXWNZYNT57NO3IQ3X9P")),
            ("secret.databricks-token", concat!("dapi", "944ff770e4b9447a3d54ec6390bf6118")),
            ("secret.sentry-token", concat!("sntryu", "_9639e35aeeb95210ef2a83fdf6a0b29872400c49b5539ac5ba7b4b87113c16fd")),
            ("secret.newrelic-key", concat!("NRAK", "-5KTFJOKI2ZFC24MNXAC61JSED60")),
            ("secret.groq-key", concat!("gsk", "_4veCaQ90l5UkysaCZKRwKmEfIuHDBI6O3jz9MNfZZdURvMQtKKA8")),
            ("secret.pulumi-token", concat!("pul", "-bf49a067e24bdb7ec83756378368f7e732d2e433")),
            ("secret.planetscale-token", concat!("pscale_tkn", "_D1RzIk99mKEXfixXNdzpdxcaSM9nDthTiB64fN3mKh6")),
            ("secret.tailscale-key", concat!("tskey", "-api-kU3wkxV1vZWCNTRL-VRa0qhpxGVH8wUFc0MwgwJuZMhc76Rpq")),
            ("secret.langsmith-key", concat!("lsv2_pt", "_b6e0e30f328549c488e00a4ff1125cf5_ec72ba6941")),
            ("secret.rubygems-key", concat!("rubygems", "_65beaecba0afa707e1448c828b4136d3b97429ab7bca1aaf")),
            ("secret.alibaba-key", concat!("LTAI", "Gx5pZpwjina43QDzCzKX")),
            ("secret.yandex-key", concat!("AQVN", "3xk9Lq0wT_fHb2Rz7cYp-Em4JsVd8NuAaGi1")),
            ("secret.yandex-key", concat!("y0", "_AgAAAABk3Jq9Xw7TzR2mVb8Lc-Hs4NfGe1YpKuOiDa6_QtWlZr0EhMjSxCvBnUyIoP5")),
            ("secret.yandex-key", concat!("YCAJ", "Ek3Wq9ZxTrLm2Vb8Lc-Hs4NfGe1YpKuOiDa6Qt")),
            (
                "secret.jwt",
                concat!("Authorization: Bearer eyJhbGciOiJIUzI1NiJ9", ".eyJzdWIiOiJ0ZXN0In0.wdUS0d7FZTmxLoICfZfu3zMtWfNwD-G3SaoKfgFoeOA"),
            ),
            ("secret.aws-secret-key", "aws_secret_access_key = El2hpChYgCfrL1spNxnyVmihA/2O76UMFxFkM/R5"),
            ("secret.aws-secret-key", "AWS: key id in vault, secret: El2hpChYgCfrL1spNxnyVmihA/2O76UMFxFkM/R5"),
        ];
        for &(id, text) in cases {
            finds(id, text);
        }
    }

    #[test]
    fn private_keys_of_every_kind_are_found() {
        let body = "MIIEowIBAAKCAQEAzMGni3WhRGfI2rVXWybQTKjtayTfSlX2oumQ5geJ6xZGWtme";
        for kind in ["RSA ", "EC ", "DSA ", "OPENSSH ", "ENCRYPTED ", ""] {
            let text = format!(
                "key:\n-----BEGIN {kind}PRIVATE KEY-----\n{body}\n-----END {kind}PRIVATE KEY-----"
            );
            assert_eq!(
                found(PRIVATE_KEY, &text),
                format!("-----BEGIN {kind}PRIVATE KEY-----\n{body}")
            );
        }
        finds(
            PRIVATE_KEY,
            &format!("-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,9F2C1E7A\n\n{body}\n"),
        );
        finds(
            PRIVATE_KEY,
            &format!("-----BEGIN PGP PRIVATE KEY BLOCK-----\nVersion: GnuPG v2\n\nlQOYBF{body}\n"),
        );
        finds(
            PRIVATE_KEY,
            &format!("---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----\n{body}\n"),
        );
        finds(
            PRIVATE_KEY,
            &format!("PuTTY-User-Key-File-3: ssh-ed25519\nPublic-Lines: 2\nAAAAC3NzaC1lZDI1NTE5\nPrivate-Lines: 1\n{body}\n"),
        );
        finds(
            PRIVATE_KEY,
            &format!("\"private_key\": \"-----BEGIN PRIVATE KEY-----\\n{body}\\n\""),
        );
        // The armour alone, a redacted body, public material.
        clean("Keys start with -----BEGIN RSA PRIVATE KEY----- and end with the END line.");
        clean("-----BEGIN PRIVATE KEY-----\n...\n-----END PRIVATE KEY-----");
        clean("-----BEGIN PRIVATE KEY-----\n<your key here>\n-----END PRIVATE KEY-----");
        clean(&format!(
            "-----BEGIN PUBLIC KEY-----\n{body}\n-----END PUBLIC KEY-----"
        ));
        clean(&format!(
            "-----BEGIN CERTIFICATE-----\n{body}\n-----END CERTIFICATE-----"
        ));
    }

    #[test]
    fn urls_with_a_password_are_found() {
        for url in [
            "DATABASE_URL=postgres://app:Zq8vK2mLp4@db.internal:5432/app",
            "postgresql://svc:s3cr3t-Pa55@10.0.0.5/orders?sslmode=require",
            "mysql://root:Tr0ub4dor@localhost/shop",
            "mongodb+srv://reader:xK9vLm2QpR@cluster0.example.net/db",
            "redis://:hunter2hunter2@cache:6379/0",
            "amqp://worker:b7Fq9zR2@rabbit.internal:5672/",
            "https://deploy:Gq7xWm2Lk9@git.internal/acme/app.git",
        ] {
            finds(URL_PASSWORD, url);
        }
        assert_eq!(
            found(URL_PASSWORD, "mysql://root:Tr0ub4dor@localhost/shop"),
            "Tr0ub4dor"
        );
        for url in [
            "postgres://localhost/db",
            "postgres://app@db.internal/app",
            "postgres://postgres:postgres@localhost:5432/postgres",
            "amqp://guest:guest@localhost:5672/",
            "postgres://user:password@host/db",
            "postgres://user:${PGPASSWORD}@host/db",
            "postgres://user:$PGPASSWORD@host/db",
            "postgres://user:<password>@host/db",
            "redis://:****@cache:6379",
            "https://example.com:8443/path?user=a@b.c",
            "Open http://localhost:3000 and log in as admin@example.com",
            "ssh://git@github.com:22/acme/app.git",
        ] {
            clean(url);
        }
    }

    #[test]
    fn values_assigned_to_key_like_names_are_found() {
        let value = "zMGni3WhRGfI2rVXWybQTKjtayTfSlX2";
        for text in [
            format!("api_key={value}"),
            format!("API_KEY: {value}"),
            format!("{{\"client_secret\": \"{value}\"}}"),
            format!("export SERVICE_TOKEN={value}"),
            format!("apiKey: '{value}'"),
            format!("SECRET_KEY_BASE = \"{value}\""),
            format!("$env:ACCESS_KEY = \"{value}\""),
            format!("curl -H 'Authorization: Bearer {value}' https://api.internal/v1"),
            format!("mytool --api-key {value}"),
            format!("The API key for staging is {value}."),
            format!("Token (prod): {value}"),
            format!("токен: {value}"),
            format!("Токен бота для уведомлений: {value}"),
            format!("Ключ API — {value}"),
            format!("секретный ключ: {value}"),
            format!("signing key (billing, eu-west): {value}"),
        ] {
            assert_eq!(found(GENERIC, &text), value, "{text}");
        }
        // A key may hold an `@`; an address is not a key.
        finds(GENERIC, "SIGNING_SECRET: Hq7!pZ2@wLx9#Rv4Tb8@Nc3Ke6Ym1Ua5");
        clean("contact_key: release-team.lead@mail.example.com");
        finds(PASSWORD, "пароль от стенда (qa, юзер tester): Vx7rQpL2mZ");
        clean("пароль от стенда (qa, спросить у Олега): в менеджере паролей");
    }

    #[test]
    fn passwords_follow_their_own_rule() {
        for text in [
            "password: hunter2",
            "DB_PASSWORD=Tr0ub4dor&3",
            "\"password\": \"P@ssw0rd\"",
            "mysql --password S3cretPass",
            "SMTP_PASS=mail2024!",
            "DB password is 'S3cure!Pass'",
            "{\"user\":\"app\",\"password\":\"hunter2\"}",
            "Логин admin, пароль Adm1n!2024",
            "user deploy password Adm1n!2024",
            "PASS=Zx9kLm2q",
            "kubectl create secret generic db --from-literal=password=hunter2",
            "The wifi password is Guest2024!",
            "password for staging db: admin123",
            "Пароль: qwerty123",
            "пароль от базы: Zx9!kLm",
            "Пароль — ПарольВход7",
        ] {
            finds(PASSWORD, text);
        }
        assert_eq!(
            found(PASSWORD, "password: hunter2 (rotate monthly)"),
            "hunter2"
        );
        assert_eq!(
            found(PASSWORD, "Пароль от роутера: «Qwerty123»."),
            "Qwerty123"
        );
        for text in [
            "password: required",
            "password: postgres",
            "Password: stored in 1Password, vault Engineering.",
            "Password: 1Password → Engineering",
            "password: changeme",
            "password: ${DB_PASSWORD}",
            "password: $DB_PASSWORD",
            "PASSWORD=<your-password>",
            "password: ********",
            "password: xxxxxx",
            "password: YOUR_PASSWORD_HERE",
            "password_hash: $2b$12$KIXQJ0nq3bO1nQy7Yb9eUOQ8kZbWqQ9r5mYjXo0a1uS2d3f4g5h6i",
            "Password policy: at least 12 characters.",
            "password_file: /run/secrets/db",
            "Password rotation: 2024-05-01",
            "password: stored-in-vault",
            "PasswordAuthentication no",
            "пароль: хранится в Vault",
            "Password: ••••••••",
            "--password",
            "First pass: refactor_v2 done, second pass: tests.",
            "Tests pass: 120/128",
            "Password hashing uses argon2id with 64 MiB.",
            "The password manager is 1Password; password reset goes through SSO.",
            "Login without a password (see vault) is disabled.",
            "Пароль менять раз в 90 дней, без пароля вход закрыт.",
        ] {
            clean(text);
        }
    }

    #[test]
    fn lookalikes_are_not_secrets() {
        for text in [
            // Placeholders and redactions.
            concat!("AKIA", "IOSFODNN7EXAMPLE"),
            "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            "OPENAI_API_KEY=sk-...abcd",
            "OPENAI_API_KEY=sk-...",
            concat!("ghp", "_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"),
            concat!("ghp", "_************************************"),
            concat!("glpat", "-XXXXXXXXXXX-XXXXXXXX"),
            concat!("https://hooks.slack", ".com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX"),
            "api_key: <your-api-key>",
            "api_key: ${API_KEY}",
            "token: $TOKEN",
            "GITHUB_TOKEN=YOUR_TOKEN_HERE",
            "secret: changeme",
            "API_KEY=xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
            "token: process.env.GITHUB_TOKEN_2024_PROD_ONLY",
            "api_key: {{ vault_api_key_for_service_2024 }}",
            "OPENAI_API_KEY: ${{ secrets.OPENAI_API_KEY }}",
            // Identifiers, digests, public material.
            "Tenant id is 3f6b2c1e-8a4d-4e2f-9b7c-1d2e3f4a5b6c.",
            "api_key: 3f6b2c1e-8a4d-4e2f-9b7c-1d2e3f4a5b6c",
            "Release v2.3.1 is commit 9f2c1e7a4b6d8e0f1a2b3c4d5e6f7a8b9c0d1e2f.",
            "image: node:20-alpine@sha256:413187604e8ef1b12a80bf8843075b7d1fb63c0ad3995bd6c96fde1797abd723",
            "\"integrity\": \"sha512-Te0rlhAkTbhOQLqSjajv91cS6zCV7BSVLU2UWvx3Te0rlhAkTbhOQLqSjajv91cS6zCV7BSVLU2UWvx3==\"",
            "token_hash: sha256:413187604e8ef1b12a80bf8843075b7d1fb63c0ad3995bd6c96fde1797abd723",
            "signing key fingerprint: SHA256:Vic0w9gNtbEcJRKaZlR4HU5j2ZsQQMVpZKD+OlKegfU",
            "GPG key is 3AA5C3437156 7BD2A1F09C3E64B12D9F0E7A1C22",
            "ssh key: ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIPgnDGU+Cb4w5ywz47iVj7Vl0Nf8Jbsxb/a40a0wAveX ci@github",
            "public key: age1urljf7fqr7qdyfqwhm3aeu7guv0q69v9hru98eegwe8ua835arga3fjv79",
            "primary key: order_id_and_line_number_2024",
            "api key: 00:1A:2B:3C:4D:5E:6F:70:81:92:A3:B4",
            "1700000000:INFO_UserLoginSucceededForAccount",
            "logo: data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
            "Te0rlhAkTbhOQLqSjajv91cS6zCV7BSVLU2UWvx3Te0rlhAkTbhOQLqSjajv91cS6zCV7BSVLU2UWvx3",
            // Names without values and words that read as names.
            "OPENAI_API_KEY is read from the environment; .env.example has `OPENAI_API_KEY=` left empty.",
            "Set GITHUB_TOKEN and NPM_TOKEN in the CI settings.",
            "token: RefreshTokenProviderFactory",
            "secret_key: prod_payment_service_key_2024",
            "auth: OAuth2 via the identity provider",
            "The token is stored in Vault under secret/data/myapi.",
            "Token refresh bug: the mobile app sent expired tokens after sleep; fixed in 4.2.0.",
            "Secrets live in Vault under secret/data/myapi; the app reads them via the agent.",
            "key: value",
            "Stripe test keys start with sk_test_ and live keys with sk_live_.",
            "GitHub PATs (ghp_…) expire after 90 days.",
            "The Slack bot token (xoxb-…) is in Vault.",
            "task-force notes, the desk-lamp, risk-free",
            "Ключ OpenAI ротируется раз в месяц в Vault.",
            "Local db: `docker run -e POSTGRES_PASSWORD=postgres -p 5432:5432 postgres:16`.",
            "NODE_OPTIONS=--max-old-space-size=4096 for the build.",
            "Token endpoint: https://auth.example.com/oauth/token",
            "The JWT secret is read from the JWT_SECRET env var.",
            "key: ctrl+shift+p opens the command palette",
            "Redis key pattern: session:{user_id}:{token}",
            "cache key: user:42:profile:v2:2024-05-01T00:00Z",
            "S3 key: uploads/2024/05/invoice-8841.pdf",
            "i18n key: checkout.payment.button_label_v2",
            "Feature flag key: new-checkout-flow-2024",
            "Idempotency-Key: 8f14e45f-ceea-467f-a0e6-4f7a2c3b1d90",
            "x-api-key header is required on every call.",
            "Authorization: Bearer <token>",
            "Bearer token TTL: 3600",
            "GITHUB_TOKEN: ${{ github.token }}",
            "max_tokens: 4096, tokenizer: cl100k_base",
            "openai_api_key_env: OPENAI_API_KEY",
            "secret_name: prod-db-credentials",
            "secretRef: db-secret-2024",
            "Password for the staging DB is in 1Password under 'Staging DB'.",
            "Passphrase: correct horse battery staple",
            "pwd: /home/user/project",
            "Auth: user:pass",
            "--from-literal=password=$(openssl rand -hex 16)",
            "Cookie flags: Secure; HttpOnly; SameSite=Strict",
            "Sentry DSN: https://3f6b2c1e8a4d4e2f@o12345.ingest.sentry.io/678",
            "Ключевой момент: деплой в пятницу запрещён, см. RFC-2024-05.",
            "Секретарь: Анна Петрова, тел. 8-800-555-35-35",
            "Keyboard: key repeat 30ms, delay 250ms",
            "The API key is restricted to *.acme.dev referrers.",
            "AWS_REGION=us-east-1 AWS_PROFILE=dev-admin",
            "version: 3.12.4, build: 20240501.1842, commit: 4f7a2c3b1d90e8f14e45fceea467fa0e64f7a2c3",
            "Токены доступа хранятся в Vault, в .env их не коммитить.",
        ] {
            clean(text);
        }
    }

    #[test]
    fn fullwidth_and_invisible_characters_do_not_hide_a_key() {
        let zw = concat!("AWS key: AKIA\u{200B}", "UJZDE8GXD6NCF10E");
        assert_eq!(
            found("secret.aws-access-key", zw),
            concat!("AKIA\u{200B}", "UJZDE8GXD6NCF10E")
        );
        let shy = concat!(
            "gh\u{AD}p",
            "_sMehGAkWvj7FAc9QeWJKY40uvSwMFLZDe1f8 is the bot token"
        );
        assert_eq!(
            found("secret.github-token", shy),
            concat!("gh\u{AD}p", "_sMehGAkWvj7FAc9QeWJKY40uvSwMFLZDe1f8")
        );
        finds(
            "secret.aws-access-key",
            "ＡＫＩＡＵＪＺＤＥ８ＧＸＤ６ＮＣＦ１０Ｅ",
        );
        // Case is part of the format.
        clean(concat!("akia", "ujzde8gxd6ncf10e"));
    }

    #[test]
    fn split_keys_are_found() {
        let wrapped = concat!(
            "bot token: ghp",
            "_sMehGAkWvj7FAc9QeWJ\nKY40uvSwMFLZDe1f8\n"
        );
        assert_eq!(
            found("secret.github-token", wrapped),
            concat!("ghp", "_sMehGAkWvj7FAc9QeWJ\nKY40uvSwMFLZDe1f8")
        );
        finds(
            "secret.openai-key",
            concat!("OPENAI_API_KEY=sk-proj", "-YXjU2JgJngKtFI3OyV2dZAkg05rK_gqv81RKMG\\\n    HZEM9YpvujA-C5Q52ryFT3BlbkFJlwRlOEVHzc0X0AWIRh\n"),
        );
        finds(
            "secret.aws-access-key",
            concat!("key id AKIA", "UJZDE8\r\nGXD6NCF10E"),
        );
        finds(
            "secret.slack-token",
            concat!(
                "xoxb",
                "-676122202972-\n9975288200182-B3m03nbqnsGpWLuqIA1id6Vw"
            ),
        );
        // A key whose line ends normally is not glued to the next line.
        let two = concat!("AKIA", "UJZDE8GXD6NCF10E\nnext line");
        assert_eq!(
            found("secret.aws-access-key", two),
            concat!("AKIA", "UJZDE8GXD6NCF10E")
        );
        // A key cut in two with a label on each half: the first half is
        // a key of its own.
        finds(
            "secret.github-token-part",
            concat!(
                "part 1: ghp",
                "_pj2OReTHzkRsoDm8\npart 2: 9d2yC3O78mL3Wi3OYHtf"
            ),
        );
        finds(
            "secret.telegram-bot-token",
            concat!("bot token, first part: 7312098841", ":AA6X68serX2Mc29VAQ"),
        );
        clean("Token ids look like ghp_ followed by 36 characters.");
        // Ordinary wrapped prose and base64 lines assemble no key.
        clean("The deploy notes mention the token\nrotation every month and the AKIA\nprefix of AWS key ids.");
    }

    #[test]
    fn byte_ranges_point_into_the_raw_text() {
        let text = concat!(
            "Ключ для деплоя: AKIA",
            "UJZDE8GXD6NCF10E, секрет: El2hpChYgCfrL1spNxnyVmihA/2O76UMFxFkM/R5"
        );
        assert_eq!(
            found("secret.aws-access-key", text),
            concat!("AKIA", "UJZDE8GXD6NCF10E")
        );
        assert_eq!(
            found(AWS_SECRET, text),
            "El2hpChYgCfrL1spNxnyVmihA/2O76UMFxFkM/R5"
        );
    }

    /// The CPU time of the fastest of five runs of [`find`] over `text`
    /// (CPU time: see [`super::super::cost`]).
    fn cost(text: &str) -> Duration {
        let norm = normalise(text);
        let pairs = Pairs::of(&norm.text);
        (0..5)
            .map(|_| {
                let mut findings = Vec::new();
                cpu_cost(|| find(text, &norm, &pairs, &mut findings))
            })
            .min()
            .unwrap_or_default()
    }

    #[test]
    fn adversarial_inputs_cost_linear_time() {
        let units = [
            "api_key=",
            "-----BEGIN ",
            "-----BEGIN PRIVATE KEY-----\nProc-Type: x\n",
            "private key",
            "ghp_",
            "eyJ",
            "eyJhbGciOiJIUzI1NiJ9.",
            "sk-",
            "AKIA",
            "SK0123456789abcdef",
            "AC0123456789abcdef0123456789abcdef ",
            "xoxb-1",
            "Q~",
            "password: ",
            "password: hunter2 ",
            "token is ",
            "--password ",
            "\"secret\": \"",
            "postgres://u:",
            "postgres://u:p",
            "1234567890:",
            "MTA4NzQ5ODcyMzQ1NjY4OTAx.",
            "a:",
            "=",
            "Te0rlhAkTbhOQLqSjajv91cS6zCV7BSVLU2UWvx3",
            "abcd\n",
            "abcd\\\n",
            "hooks.slack.com/services/T",
            "токен: ",
        ];
        // Ordinary text: the benign corpus (notes full of commands, URLs,
        // key names and hashes), repeated.
        let benign = include_str!("../../tests/fixtures/scan/benign.jsonl");
        let prose = cost(&benign.repeat(256 * 1024 / benign.len()));
        for unit in units {
            let small = unit.repeat(64 * 1024 / unit.len());
            let large = unit.repeat(256 * 1024 / unit.len());
            // A shared machine can stall one measurement: a real blow-up
            // fails every attempt, noise does not.
            let (mut s, mut l, mut ratio) = (Duration::ZERO, Duration::ZERO, f64::MAX);
            for _ in 0..8 {
                (s, l) = (cost(&small), cost(&large));
                // A floor under the small time keeps timer noise out of
                // the ratio.
                ratio = l.as_secs_f64() / s.max(Duration::from_micros(200)).as_secs_f64();
                if ratio < 8.0 {
                    break;
                }
            }
            eprintln!(
                "{unit:?}: 64 KiB {s:?}, 256 KiB {l:?} (x{ratio:.1}; prose 256 KiB {prose:?})"
            );
            assert!(
                ratio < 8.0,
                "{unit:?}: 64 KiB {s:?}, 256 KiB {l:?} (x{ratio:.1})"
            );
        }
    }
}
