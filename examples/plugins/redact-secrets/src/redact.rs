//! Hand-written scanners for secrets in text. They need no regex engine, so
//! the plugin stays small (Debian's regex crate would add hundreds of KB
//! of wasm) and each pass is linear.
//!
//! Each scanner jumps between rare anchor bytes ('@', '-', '_', ':', ...)
//! with `mcphost_pdk::scan`, which looks at 32 bytes per loop iteration, and
//! does per-byte work only around them: under mcphost's call timeout every
//! wasm loop iteration costs ~22 ns, so a byte-by-byte pass over a 100 KB
//! result would cost over 2 ms.
//!
//! Every pattern is ASCII, so match boundaries always fall on UTF-8
//! character boundaries and slicing the `&str` there is safe; a non-ASCII
//! byte simply never extends a match.
//!
//! A replacement is `[REDACTED:<kind>]`. Scanners never match inside such a
//! marker, so redacting twice changes nothing (idempotence).

use mcphost_pdk::scan::{find_byte, find_byte2, find_byte3, find_bytes};
use std::fmt;

/// A category of secret, as named in the `kinds` configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// PEM private key blocks (`-----BEGIN ... PRIVATE KEY-----` .. `-----END ...-----`).
    PrivateKey,
    /// `Bearer <token>` (the token is redacted, the word kept).
    BearerToken,
    /// Provider keys (`sk-`, `sk-ant-`, `ghp_`/`gho_`/..., `github_pat_`,
    /// `xox[baprs]-`, `AKIA`/`ASIA`) and `api_key = value` assignments (the
    /// value is redacted, the name kept).
    ApiKey,
    /// E-mail addresses.
    Email,
}

impl Kind {
    /// Every kind, in the order they are applied: whole PEM blocks first, so
    /// their base64 body is not half-matched by the others.
    pub const ALL: [Kind; 4] = [
        Kind::PrivateKey,
        Kind::BearerToken,
        Kind::ApiKey,
        Kind::Email,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Kind::PrivateKey => "private_key",
            Kind::BearerToken => "bearer_token",
            Kind::ApiKey => "api_key",
            Kind::Email => "email",
        }
    }

    pub fn parse(s: &str) -> Option<Kind> {
        Kind::ALL.iter().copied().find(|k| k.name() == s)
    }

    /// The passes for this kind, applied in order. Provider keys go before
    /// `api_key = value`, so a provider key assigned to api_key is redacted
    /// once, and the assignment pass then sees the marker and skips it.
    fn finders(self) -> &'static [Finder] {
        match self {
            Kind::PrivateKey => &[find_private_key],
            Kind::BearerToken => &[find_bearer],
            Kind::ApiKey => &[find_provider_key, find_assigned_key],
            Kind::Email => &[find_email],
        }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Finds the next match starting at or after a byte offset, as a span to
/// replace.
type Finder = fn(&[u8], usize) -> Option<(usize, usize)>;

/// Redacts the enabled kinds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redactor {
    kinds: Vec<Kind>,
}

impl Redactor {
    /// A redactor for `kinds`, applied in [`Kind::ALL`] order whatever the
    /// order given.
    pub fn new(kinds: &[Kind]) -> Self {
        Redactor {
            kinds: Kind::ALL
                .iter()
                .copied()
                .filter(|k| kinds.contains(k))
                .collect(),
        }
    }

    /// From the `kinds` configuration: `None` (unset) enables every kind;
    /// an unknown name, or a list naming none, is an error. (An empty value
    /// cannot be told from an unset one through Extism's config_get, so
    /// "kinds: ''" enables every kind too.)
    pub fn from_names(names: Option<Vec<String>>) -> Result<Self, String> {
        let names = match names {
            None => return Ok(Redactor::new(&Kind::ALL)),
            Some(n) => n,
        };
        let known = || {
            Kind::ALL
                .iter()
                .map(|k| k.name())
                .collect::<Vec<_>>()
                .join(", ")
        };
        if names.is_empty() {
            return Err(format!(
                "config kinds: no kind listed (known: {}; remove the key to enable all)",
                known()
            ));
        }
        let mut kinds = Vec::new();
        for n in &names {
            match Kind::parse(n) {
                Some(k) => kinds.push(k),
                None => {
                    return Err(format!(
                        "config kinds: unknown kind {n:?} (known: {})",
                        known()
                    ))
                }
            }
        }
        Ok(Redactor::new(&kinds))
    }

    /// Redacts `s` in place and returns how many secrets were replaced.
    pub fn redact_in_place(&self, s: &mut String) -> usize {
        let mut n = 0;
        for &k in &self.kinds {
            for &find in k.finders() {
                if let Some(r) = replace_all(s, k, find, &mut n) {
                    *s = r;
                }
            }
        }
        n
    }

    /// Redacted copy of `s`.
    pub fn redact(&self, s: &str) -> String {
        let mut s = s.to_string();
        self.redact_in_place(&mut s);
        s
    }
}

/// Replaces every match of `kind` in `s`; `None` when there is none (no
/// allocation on the common path).
fn replace_all(s: &str, kind: Kind, find: Finder, count: &mut usize) -> Option<String> {
    let b = s.as_bytes();
    let mut out: Option<String> = None;
    let mut last = 0;
    while let Some((start, end)) = find(b, last) {
        let o = out.get_or_insert_with(|| String::with_capacity(s.len()));
        o.push_str(&s[last..start]);
        o.push_str("[REDACTED:");
        o.push_str(kind.name());
        o.push(']');
        last = end;
        *count += 1;
    }
    out.map(|mut o| {
        o.push_str(&s[last..]);
        o
    })
}

fn is_alnum(c: u8) -> bool {
    c.is_ascii_alphanumeric()
}

/// True when a token may start at `i`: start of text or a byte that cannot
/// be part of a word before it.
fn boundary_before(b: &[u8], i: usize) -> bool {
    i == 0 || !(is_alnum(b[i - 1]) || b[i - 1] == b'_')
}

/// Length of the run at `i` of bytes accepted by `ok`.
fn run(b: &[u8], i: usize, ok: impl Fn(u8) -> bool) -> usize {
    b[i.min(b.len())..].iter().take_while(|&&c| ok(c)).count()
}

fn starts_with_ci(b: &[u8], i: usize, pat: &[u8]) -> bool {
    b.len() >= i + pat.len() && b[i..i + pat.len()].eq_ignore_ascii_case(pat)
}

/// `pat` (any case) ends just before `end`, not reaching below `floor`.
fn ends_with_ci(b: &[u8], floor: usize, end: usize, pat: &[u8]) -> bool {
    end >= floor + pat.len() && b[end - pat.len()..end].eq_ignore_ascii_case(pat)
}

// ---- private keys ----------------------------------------------------------

const PEM_BEGIN: &[u8] = b"-----BEGIN ";
const PEM_END: &[u8] = b"-----END ";
const PEM_DASHES: &[u8] = b"-----";

fn is_pem_label(c: u8) -> bool {
    c.is_ascii_uppercase() || c.is_ascii_digit() || c == b' '
}

fn find_private_key(b: &[u8], from: usize) -> Option<(usize, usize)> {
    let mut at = from;
    while let Some(start) = find_bytes(b, at, PEM_BEGIN) {
        let label_at = start + PEM_BEGIN.len();
        // The label is upper-case words on the header line.
        let label_len = run(b, label_at, is_pem_label);
        let label = &b[label_at..label_at + label_len];
        let closed = b[label_at + label_len..].starts_with(PEM_DASHES);
        if closed && find_bytes(label, 0, b"PRIVATE KEY").is_some() {
            let body = label_at + label_len + PEM_DASHES.len();
            // Up to the end of the footer line's dashes; a block cut off
            // (no footer) is redacted to the end of the text.
            let end = match find_bytes(b, body, PEM_END) {
                Some(e) => {
                    let after = e + PEM_END.len();
                    let l = run(b, after, is_pem_label);
                    if b[after + l..].starts_with(PEM_DASHES) {
                        after + l + PEM_DASHES.len()
                    } else {
                        after + l
                    }
                }
                None => b.len(),
            };
            return Some((start, end));
        }
        at = start + 1;
    }
    None
}

// ---- bearer tokens ---------------------------------------------------------

/// RFC 6750 b64token characters.
fn is_b64token(c: u8) -> bool {
    is_alnum(c) || matches!(c, b'-' | b'.' | b'_' | b'~' | b'+' | b'/' | b'=')
}

fn find_bearer(b: &[u8], from: usize) -> Option<(usize, usize)> {
    let mut at = from;
    while let Some(i) = find_byte2(b, at, b'b', b'B') {
        at = i + 1;
        if !(starts_with_ci(b, i, b"bearer") && boundary_before(b, i)) {
            continue;
        }
        let sp = run(b, i + 6, |c| c == b' ' || c == b'\t');
        if sp == 0 {
            continue;
        }
        let t = i + 6 + sp;
        let n = run(b, t, is_b64token);
        let tok = &b[t..t + n];
        // "the bearer of this letter" must survive: a token is long and has
        // a digit or punctuation, or is long enough anyway.
        let tokenish = tok.iter().any(|&c| !c.is_ascii_alphabetic());
        if (n >= 8 && tokenish) || n >= 24 {
            return Some((t, t + n));
        }
    }
    None
}

// ---- API keys --------------------------------------------------------------

fn is_key_char(c: u8) -> bool {
    is_alnum(c) || c == b'_' || c == b'-'
}

/// Provider keys, found from their separator ('-' of `sk-` and `xoxb-`, '_'
/// of `ghp_` and `github_pat_`) or their first letter (`AKIA`, `ASIA`).
fn find_provider_key(b: &[u8], from: usize) -> Option<(usize, usize)> {
    let mut at = from;
    while let Some(j) = find_byte3(b, at, b'-', b'_', b'A') {
        at = j + 1;
        // A start must not reach back into text already handled.
        let ok_start = |s: usize| s >= from && boundary_before(b, s);
        match b[j] {
            b'-' => {
                if j >= 2 && &b[j - 2..j] == b"sk" && ok_start(j - 2) {
                    // OpenAI (sk-, sk-proj-) and Anthropic (sk-ant-) keys:
                    // long random bodies, so insist on length and a digit to
                    // spare prose like "sk-learn-style".
                    let n = run(b, j + 1, is_key_char);
                    let body = &b[j + 1..j + 1 + n];
                    if n >= 20
                        && body.iter().any(u8::is_ascii_digit)
                        && body.iter().any(u8::is_ascii_alphabetic)
                    {
                        return Some((j - 2, j + 1 + n));
                    }
                } else if j >= 4
                    && &b[j - 4..j - 1] == b"xox"
                    && b"baprs".contains(&b[j - 1])
                    && ok_start(j - 4)
                {
                    // Slack tokens.
                    let n = run(b, j + 1, |c| is_alnum(c) || c == b'-');
                    if n >= 10 && b[j + 1..j + 1 + n].iter().any(u8::is_ascii_digit) {
                        return Some((j - 4, j + 1 + n));
                    }
                }
            }
            b'_' => {
                if j >= 6
                    && &b[j - 6..j] == b"github"
                    && b[j..].starts_with(b"_pat_")
                    && ok_start(j - 6)
                {
                    let n = run(b, j + 5, |c| is_alnum(c) || c == b'_');
                    if n >= 20 {
                        return Some((j - 6, j + 5 + n));
                    }
                } else if j >= 3
                    && &b[j - 3..j - 1] == b"gh"
                    && b"pousr".contains(&b[j - 1])
                    && ok_start(j - 3)
                {
                    // GitHub tokens: ghp_ (classic PAT), gho_, ghu_, ghs_,
                    // ghr_; 36 characters.
                    let n = run(b, j + 1, is_alnum);
                    if n >= 30 {
                        return Some((j - 3, j + 1 + n));
                    }
                }
            }
            _ => {
                // AWS access key ids: AKIA or ASIA and exactly 16 upper-case
                // letters or digits.
                if (b[j..].starts_with(b"AKIA") || b[j..].starts_with(b"ASIA")) && ok_start(j) {
                    let n = run(b, j + 4, |c| c.is_ascii_uppercase() || c.is_ascii_digit());
                    if n == 16 && !b.get(j + 20).map_or(false, |&c| is_alnum(c)) {
                        return Some((j, j + 20));
                    }
                }
            }
        }
    }
    None
}

/// Characters of an assigned value: up to whitespace, quotes, separators
/// and brackets, so JSON, query strings and shell lines keep their shape.
fn is_value_char(c: u8) -> bool {
    c > b' '
        && c < 0x7f
        && !matches!(
            c,
            b'"' | b'\''
                | b'`'
                | b','
                | b';'
                | b'&'
                | b'<'
                | b'>'
                | b'('
                | b')'
                | b'['
                | b']'
                | b'{'
                | b'}'
        )
}

/// `api[_-]?key` (any case), an optional closing quote, spaces, `:` or `=`,
/// spaces, an optional opening quote, and a value: the value's span. Found
/// from the separator, looking back for the name.
fn find_assigned_key(b: &[u8], from: usize) -> Option<(usize, usize)> {
    let mut at = from;
    while let Some(j) = find_byte2(b, at, b':', b'=') {
        at = j + 1;
        let mut k = j;
        while k > from && (b[k - 1] == b' ' || b[k - 1] == b'\t') {
            k -= 1;
        }
        if k > from && (b[k - 1] == b'"' || b[k - 1] == b'\'') {
            k -= 1;
        }
        if !ends_with_ci(b, from, k, b"key") {
            continue;
        }
        k -= 3;
        if k > from && (b[k - 1] == b'_' || b[k - 1] == b'-') {
            k -= 1;
        }
        if !ends_with_ci(b, from, k, b"api") {
            continue;
        }
        let mut v = j + 1;
        v += run(b, v, |c| c == b' ' || c == b'\t');
        if matches!(b.get(v), Some(b'"') | Some(b'\'')) {
            v += 1;
        }
        let n = run(b, v, is_value_char);
        if n > 0 {
            return Some((v, v + n));
        }
    }
    None
}

// ---- e-mail addresses ------------------------------------------------------

fn is_local_char(c: u8) -> bool {
    is_alnum(c) || matches!(c, b'.' | b'_' | b'%' | b'+' | b'-')
}

fn is_domain_char(c: u8) -> bool {
    is_alnum(c) || c == b'.' || c == b'-'
}

/// The end of a valid domain starting at `i`: at least two labels, labels
/// not empty and not starting or ending with '-', an alphabetic TLD of two
/// or more letters (so "pkg@1.2.3" is a version, not an address).
fn domain_end(b: &[u8], i: usize) -> Option<usize> {
    let mut n = run(b, i, is_domain_char);
    while n > 0 && matches!(b[i + n - 1], b'.' | b'-') {
        n -= 1;
    }
    let dom = &b[i..i + n];
    let mut labels = 0;
    let mut tld: &[u8] = &[];
    for l in dom.split(|&c| c == b'.') {
        if l.is_empty() || l[0] == b'-' || l[l.len() - 1] == b'-' {
            return None;
        }
        labels += 1;
        tld = l;
    }
    if labels < 2 || tld.len() < 2 || !tld.iter().all(u8::is_ascii_alphabetic) {
        return None;
    }
    Some(i + n)
}

fn find_email(b: &[u8], from: usize) -> Option<(usize, usize)> {
    let mut at = from;
    while let Some(k) = find_byte(b, at, b'@') {
        // The local part, not reaching back into text already handled.
        let mut start = k;
        while start > from && is_local_char(b[start - 1]) {
            start -= 1;
        }
        while start < k && b[start] == b'.' {
            start += 1;
        }
        if start < k {
            if let Some(end) = domain_end(b, k + 1) {
                return Some((start, end));
            }
        }
        at = k + 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(s: &str) -> String {
        Redactor::new(&Kind::ALL).redact(s)
    }

    #[test]
    fn api_keys() {
        let cases = [
            (
                "key sk-proj-4fT9xQ2mZk81LwPq0a7bVn3c end",
                "key [REDACTED:api_key] end",
            ),
            (
                "ANTHROPIC=sk-ant-api03-AbC123dEf456GhI789jKl0-_xyz",
                "ANTHROPIC=[REDACTED:api_key]",
            ),
            (
                "token: ghp_0123456789abcdefghijABCDEFGHIJ012345.",
                "token: [REDACTED:api_key].",
            ),
            (
                "gho_0123456789abcdefghijABCDEFGHIJ012345",
                "[REDACTED:api_key]",
            ),
            (
                "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz",
                "[REDACTED:api_key]",
            ),
            (
                "slack xoxb-1234567890-0987654321-AbCdEfGhIjKl",
                "slack [REDACTED:api_key]",
            ),
            ("xoxp-12345678901-abcdef", "[REDACTED:api_key]"),
            ("aws AKIAIOSFODNN7EXAMPLE ok", "aws [REDACTED:api_key] ok"),
            ("ASIAY34FZKBOKMUTVV7A", "[REDACTED:api_key]"),
            ("api_key=abc123&x=1", "api_key=[REDACTED:api_key]&x=1"),
            ("API-KEY: zzz", "API-KEY: [REDACTED:api_key]"),
            ("apikey = 'q1w2e3'", "apikey = '[REDACTED:api_key]'"),
            (
                r#"{"api_key": "s3cr3t", "n": 1}"#,
                r#"{"api_key": "[REDACTED:api_key]", "n": 1}"#,
            ),
            (r#"{"apiKey":"v"}"#, r#"{"apiKey":"[REDACTED:api_key]"}"#),
            ("X-Api-Key: 0a1b2c3d4e5f", "X-Api-Key: [REDACTED:api_key]"),
            ("Api_Key=Z", "Api_Key=[REDACTED:api_key]"),
        ];
        for (input, want) in cases {
            assert_eq!(
                Redactor::new(&[Kind::ApiKey]).redact(input),
                want,
                "input {input:?}"
            );
        }
    }

    #[test]
    fn api_key_near_misses() {
        for s in [
            "sk-learn-style-naming-is-not-a-key", // no digit
            "sk-short1",                          // too short
            "task-1234567890123456789012345",     // no boundary before sk-
            "ghp_short",
            "AKIAIOSFODNN7EXAMPLEX", // 17 characters
            "xAKIAIOSFODNN7EXAMPLE",
            "xoxb-nodigitshere",
            "the api key is secret", // no ':' or '='
            "api_key=",
            "rapid keyboard = fast",
        ] {
            assert_eq!(
                Redactor::new(&[Kind::ApiKey]).redact(s),
                s,
                "false positive on {s:?}"
            );
        }
    }

    #[test]
    fn bearer_tokens() {
        let r = Redactor::new(&[Kind::BearerToken]);
        assert_eq!(
            r.redact("Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig_-x"),
            "Authorization: Bearer [REDACTED:bearer_token]"
        );
        assert_eq!(
            r.redact("bearer\tabc123def456, next"),
            "bearer\t[REDACTED:bearer_token], next"
        );
        assert_eq!(
            r.redact("BEARER AbCdEfGhIjKlMnOpQrStUvWxYz"),
            "BEARER [REDACTED:bearer_token]"
        );
        for s in [
            "the bearer of this letter",
            "Bearer authentication is described in RFC 6750",
            "Bearer tokens",
            "Bearer",
            "Bearer abc1", // too short
            "antibearer abcdef123456",
        ] {
            assert_eq!(r.redact(s), s, "false positive on {s:?}");
        }
    }

    const PEM: &str = "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA7b9+/x==\nAKIAIOSFODNN7EXAMPLE\n-----END RSA PRIVATE KEY-----";

    #[test]
    fn private_keys() {
        let r = Redactor::new(&[Kind::PrivateKey]);
        assert_eq!(
            r.redact(&format!("key:\n{PEM}\ndone")),
            "key:\n[REDACTED:private_key]\ndone"
        );
        assert_eq!(
            r.redact("a -----BEGIN PRIVATE KEY-----\\nMIIB\\n-----END PRIVATE KEY----- b"),
            "a [REDACTED:private_key] b",
            "JSON-escaped newlines"
        );
        assert_eq!(
            r.redact("-----BEGIN OPENSSH PRIVATE KEY-----\nb3Bl\n-----END OPENSSH PRIVATE KEY-----\n-----BEGIN EC PRIVATE KEY-----\nMHc\n-----END EC PRIVATE KEY-----"),
            "[REDACTED:private_key]\n[REDACTED:private_key]"
        );
        assert_eq!(
            r.redact("x -----BEGIN ENCRYPTED PRIVATE KEY-----\nMIIF...cut off"),
            "x [REDACTED:private_key]",
            "a block without footer is redacted to the end"
        );
        assert_eq!(
            r.redact(
                "-----BEGIN PGP PRIVATE KEY BLOCK-----\nlQ\n-----END PGP PRIVATE KEY BLOCK-----"
            ),
            "[REDACTED:private_key]"
        );
        // Public material is not a secret.
        let cert = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n-----BEGIN PUBLIC KEY-----\nMFkw\n-----END PUBLIC KEY-----";
        assert_eq!(r.redact(cert), cert);
        // The key body does not leak through other kinds applied after.
        assert_eq!(all(PEM), "[REDACTED:private_key]");
    }

    #[test]
    fn emails() {
        let r = Redactor::new(&[Kind::Email]);
        assert_eq!(
            r.redact("mail alice.smith+tag@example.co.uk now"),
            "mail [REDACTED:email] now"
        );
        assert_eq!(
            r.redact("<bob@mail.example.com>, carol_x@ex-ample.org."),
            "<[REDACTED:email]>, [REDACTED:email]."
        );
        assert_eq!(
            r.redact("https://user:pa55@host.example.com/x"),
            "https://user:[REDACTED:email]/x"
        );
        assert_eq!(r.redact("a@b.io@c.io"), "[REDACTED:email]@c.io");
        for s in [
            "npm i left-pad@1.3.0",
            "@scope/pkg",
            "user@localhost",
            "x@.com",
            "x@-a.com",
            "me@a.b1",
            "@@",
            "a@",
            "@b.com",
        ] {
            assert_eq!(r.redact(s), s, "false positive on {s:?}");
        }
    }

    #[test]
    fn ordinary_text_untouched() {
        let text = "The quick brown fox — naïve café, 東京 — jumps over the lazy dog.\n\
            Skip the task-based approach; GitHub's ghp prefix, xoxo hugs, an AKIA-like word,\n\
            `keys: [a, b]`, key=value, https://example.com/path?q=1#frag, v1.2.3, 10:30 a.m.\n\
            -----BEGIN CERTIFICATE----- is public. Bearer bonds. The API is key-value based.";
        assert_eq!(all(text), text);
    }

    #[test]
    fn idempotent_and_counted() {
        let r = Redactor::new(&Kind::ALL);
        let input = format!(
            "Authorization: Bearer abc.def.ghi123\napi_key=sk-proj-4fT9xQ2mZk81LwPq0a7bVn3c\nmail ops@example.com\n{PEM}\nAKIAIOSFODNN7EXAMPLE"
        );
        let mut s = input.clone();
        assert_eq!(r.redact_in_place(&mut s), 5);
        assert_eq!(
            s,
            "Authorization: Bearer [REDACTED:bearer_token]\napi_key=[REDACTED:api_key]\nmail [REDACTED:email]\n[REDACTED:private_key]\n[REDACTED:api_key]"
        );
        let once = s.clone();
        assert_eq!(r.redact_in_place(&mut s), 0);
        assert_eq!(s, once);
    }

    #[test]
    fn kinds_from_config() {
        assert_eq!(
            Redactor::from_names(None).unwrap(),
            Redactor::new(&Kind::ALL)
        );
        let r = Redactor::from_names(Some(vec!["email".into(), "private_key".into()])).unwrap();
        assert_eq!(r.kinds, vec![Kind::PrivateKey, Kind::Email]);
        assert_eq!(
            r.redact("a@b.com sk-proj-4fT9xQ2mZk81LwPq0a7bVn3c"),
            "[REDACTED:email] sk-proj-4fT9xQ2mZk81LwPq0a7bVn3c"
        );
        let e = Redactor::from_names(Some(vec!["emails".into()])).unwrap_err();
        assert_eq!(
            e,
            r#"config kinds: unknown kind "emails" (known: private_key, bearer_token, api_key, email)"#
        );
        let e = Redactor::from_names(Some(vec![])).unwrap_err();
        assert!(e.starts_with("config kinds: no kind listed"), "{e}");
    }

    #[test]
    fn utf8_around_matches() {
        let r = Redactor::new(&Kind::ALL);
        assert_eq!(r.redact("é a@b.com é"), "é [REDACTED:email] é");
        assert_eq!(
            r.redact("ключ=sk-proj-4fT9xQ2mZk81LwPq0a7bVn3c…"),
            "ключ=[REDACTED:api_key]…"
        );
        assert_eq!(
            r.redact("日本api_key=x日本"),
            "日本api_key=[REDACTED:api_key]日本"
        );
    }
}
