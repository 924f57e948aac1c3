//! The rules of description-guard and their scanners.
//!
//! Every scanner is hand-written and linear in the text: one or two passes
//! over its bytes, with work bounded by the configured lists at each
//! position. There is no regex engine: Debian's `regex` crate is not one of
//! the crates the offline build provides, and it would add hundreds of KB.

use crate::defaults::{DEFAULT_PATHS, DEFAULT_PHRASES, DEFAULT_TAGS};
use mcphost_pdk::Error;

/// The rules, in the order they are checked; the first that fires names
/// the finding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rule {
    Invisible,
    Blob,
    Markup,
    ToolNames,
}

pub const ALL_RULES: [Rule; 4] = [Rule::Invisible, Rule::Blob, Rule::Markup, Rule::ToolNames];

impl Rule {
    pub fn as_str(self) -> &'static str {
        match self {
            Rule::Invisible => "invisible",
            Rule::Blob => "blob",
            Rule::Markup => "markup",
            Rule::ToolNames => "tool_names",
        }
    }
}

/// Why a tool was hidden or flagged: the rule and what it saw.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    pub rule: Rule,
    pub field: &'static str,
    pub what: String,
}

/// Bounds on the configuration, so that a huge list cannot make every
/// listing slow.
pub const MAX_ITEMS: usize = 1000;
pub const MAX_ITEM_BYTES: usize = 200;

/// A tool of another server, from `known_tools`: `server:tool` (globs) or a
/// bare tool name (glob) of some other server.
#[derive(Debug, Clone)]
struct KnownTool {
    server: Option<String>,
    tool: String,
}

/// One phrase of the markup rule, normalized, and what kind of item it is.
#[derive(Debug, Clone)]
struct Phrase {
    text: Vec<u8>,
    kind: &'static str,
}

/// The rules as a configuration sets them.
#[derive(Debug, Clone)]
pub struct Guard {
    rules: [bool; 4],
    pub min_base64: usize,
    pub min_hex: usize,
    /// Sorted by their first two bytes, so that the candidates at a
    /// position are one range (see `first2`).
    phrases: Vec<Phrase>,
    /// One bit per first two bytes of a phrase: most positions of a text
    /// need no further look.
    first2: Vec<u64>,
    known: Vec<KnownTool>,
}

/// The settings a Guard is built from: the config keys as strings, `None`
/// when unset.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Settings {
    pub rules: Option<String>,
    pub min_base64: Option<String>,
    pub min_hex: Option<String>,
    pub phrases: Option<String>,
    pub tags: Option<String>,
    pub paths: Option<String>,
    pub known_tools: Option<String>,
}

fn items(key: &str, v: &str) -> Result<Vec<String>, Error> {
    let list: Vec<String> = v
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(String::from)
        .collect();
    if list.is_empty() {
        return Err(Error::new(format!(
            "config {key}: names no item; leave the key unset for the defaults, or turn the rule off with the rules key"
        )));
    }
    if list.len() > MAX_ITEMS {
        return Err(Error::new(format!(
            "config {key}: {} items, more than {MAX_ITEMS}; shorten the list",
            list.len()
        )));
    }
    if let Some(long) = list.iter().find(|s| s.len() > MAX_ITEM_BYTES) {
        return Err(Error::new(format!(
            "config {key}: item {:?}... is longer than {MAX_ITEM_BYTES} bytes",
            &long[..long.char_indices().nth(20).map_or(long.len(), |(i, _)| i)]
        )));
    }
    Ok(list)
}

fn length(key: &str, v: &Option<String>, default: usize) -> Result<usize, Error> {
    match v {
        None => Ok(default),
        Some(s) => match s.trim().parse::<usize>() {
            Ok(n) if (8..=4096).contains(&n) => Ok(n),
            _ => Err(Error::new(format!(
                "config {key}={s:?}: want a whole number of characters from 8 to 4096"
            ))),
        },
    }
}

fn list_or(key: &str, v: &Option<String>, default: &[&str]) -> Result<Vec<String>, Error> {
    match v {
        None => Ok(default.iter().map(|s| s.to_string()).collect()),
        Some(s) => items(key, s),
    }
}

impl Guard {
    pub fn new(s: &Settings) -> Result<Guard, Error> {
        let mut rules = [true; 4];
        if let Some(v) = &s.rules {
            rules = [false; 4];
            for item in items("rules", v)? {
                match ALL_RULES.iter().position(|r| r.as_str() == item) {
                    Some(i) => rules[i] = true,
                    None => {
                        return Err(Error::new(format!(
                            "config rules: unknown rule {item:?}; the rules are invisible, blob, markup, tool_names"
                        )))
                    }
                }
            }
        }
        let mut phrases = Vec::new();
        let mut add = |kind: &'static str, text: &str| {
            let mut n = Vec::new();
            normalize(text, &mut n);
            let n = trim_spaces(n);
            if n.len() >= 2 {
                phrases.push(Phrase { text: n, kind });
            }
        };
        for p in list_or("phrases", &s.phrases, DEFAULT_PHRASES)? {
            add("phrase", &p);
        }
        for t in list_or("tags", &s.tags, DEFAULT_TAGS)? {
            if !t
                .bytes()
                .all(|c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_')
            {
                return Err(Error::new(format!(
                    "config tags: {t:?} is not a tag name (letters, digits, - and _; without < and >)"
                )));
            }
            add("tag", &format!("<{t}"));
            add("tag", &format!("</{t}"));
        }
        for p in list_or("paths", &s.paths, DEFAULT_PATHS)? {
            add("path", &p);
        }
        phrases.sort_by(|a, b| key2(&a.text, 0).cmp(&key2(&b.text, 0)));
        let mut first2 = vec![0u64; 1024];
        for p in &phrases {
            let k = key2(&p.text, 0) as usize;
            first2[k / 64] |= 1 << (k % 64);
        }
        let mut known = Vec::new();
        if let Some(v) = &s.known_tools {
            for item in items("known_tools", v)? {
                let (server, tool) = match item.split_once(':') {
                    Some((sv, t)) => (Some(sv.trim().to_string()), t.trim().to_string()),
                    None => (None, item.clone()),
                };
                if tool.is_empty() || server.as_deref() == Some("") {
                    return Err(Error::new(format!(
                        "config known_tools: {item:?}: want server:tool or tool (globs with * and ?)"
                    )));
                }
                known.push(KnownTool { server, tool });
            }
        }
        Ok(Guard {
            rules,
            min_base64: length("min_base64", &s.min_base64, 40)?,
            min_hex: length("min_hex", &s.min_hex, 32)?,
            phrases,
            first2,
            known,
        })
    }

    fn on(&self, r: Rule) -> bool {
        self.rules[r as usize]
    }

    /// The first finding in one field of a tool of `server`. `own` is the
    /// sorted names of that server's tools; `is_name` says that `text` is
    /// the tool's name. `buf` is scratch space, reused across calls.
    pub fn check(
        &self,
        server: &str,
        own: &[&str],
        field: &'static str,
        text: &str,
        buf: &mut (Vec<u8>, Vec<usize>),
    ) -> Option<Finding> {
        if text.is_empty() {
            return None;
        }
        let found = |rule: Rule, what: String| Some(Finding { rule, field, what });
        // One pass finds the blobs and tells whether the text has any byte
        // the invisible rule looks at; plain ASCII, the common case, skips
        // that rule's character-by-character pass.
        let (blob_on, invisible_on) = (self.on(Rule::Blob), self.on(Rule::Invisible));
        if blob_on || invisible_on {
            let (run, odd) = if blob_on {
                runs(text.as_bytes(), self.min_base64, self.min_hex)
            } else {
                runs(text.as_bytes(), usize::MAX, usize::MAX)
            };
            if invisible_on && odd {
                if let Some(w) = invisible(text) {
                    return found(Rule::Invisible, w);
                }
            }
            if let Some(w) = run {
                return found(Rule::Blob, w);
            }
        }
        if self.on(Rule::Markup) {
            let (norm, cands) = buf;
            self.normalize_marking(text, norm, cands);
            if let Some(w) = self.markup(norm, cands) {
                return found(Rule::Markup, w);
            }
        }
        if self.on(Rule::ToolNames) && !self.known.is_empty() {
            if let Some(w) = self.tool_names(server, own, field == "name", text) {
                return found(Rule::ToolNames, w);
            }
        }
        None
    }

    /// Writes `text` normalized (see [`normalize`]) to `out` and, in the
    /// same pass, the positions where a phrase may start to `cands`: those
    /// whose first two bytes begin some phrase (one bit test) and that do
    /// not sit inside a word. One pass instead of two matters under the
    /// host's timeout, which costs every loop iteration an exit to Go.
    fn normalize_marking(&self, text: &str, out: &mut Vec<u8>, cands: &mut Vec<usize>) {
        out.clear();
        out.reserve(text.len());
        cands.clear();
        for &c in text.as_bytes() {
            if !normalize_byte(out, c) {
                continue;
            }
            let j = out.len() - 1;
            if j == 0 {
                continue;
            }
            let k = (out[j - 1] as usize) << 8 | out[j] as usize;
            if self.first2[k / 64] & (1 << (k % 64)) == 0 {
                continue;
            }
            // A phrase that starts with a letter or digit must start a word.
            if j >= 2 && word_byte(out[j - 2]) && word_byte(out[j - 1]) {
                continue;
            }
            cands.push(j - 1);
        }
    }

    fn markup(&self, t: &[u8], cands: &[usize]) -> Option<String> {
        for &i in cands {
            // A '>' may have replaced the second byte since (see
            // normalize_byte): check the key again.
            let k = key2(t, i);
            let from = self.phrases.partition_point(|p| key2(&p.text, 0) < k);
            for p in self.phrases[from..]
                .iter()
                .take_while(|p| key2(&p.text, 0) == k)
            {
                let end = i + p.text.len();
                if end > t.len() || t[i..end] != p.text[..] {
                    continue;
                }
                // ... and end one when it ends with one.
                if end < t.len() && word_byte(t[end]) && word_byte(p.text[p.text.len() - 1]) {
                    continue;
                }
                return Some(format!("{} {:?}", p.kind, String::from_utf8_lossy(&p.text)));
            }
        }
        None
    }

    fn tool_names(&self, server: &str, own: &[&str], is_name: bool, text: &str) -> Option<String> {
        let other = |k: &KnownTool| match &k.server {
            Some(sv) => !glob_match(sv, server),
            None => true,
        };
        if is_name {
            // The tool is named like a tool of another, named server: a
            // name collision aimed at shadowing it.
            for k in self.known.iter().filter(|k| k.server.is_some() && other(k)) {
                if glob_match(&k.tool, text) {
                    return Some(format!(
                        "named like tool {:?} of server {:?} (known_tools {}:{})",
                        text,
                        k.server.as_deref().unwrap_or(""),
                        k.server.as_deref().unwrap_or(""),
                        k.tool
                    ));
                }
            }
            return None;
        }
        let b = text.as_bytes();
        let mut i = 0;
        while i < b.len() {
            if !name_byte(b[i]) {
                i += 1;
                continue;
            }
            let start = i;
            while i < b.len() && name_byte(b[i]) {
                i += 1;
            }
            let mut end = i;
            while end > start && (b[end - 1] == b'.' || b[end - 1] == b'-') {
                end -= 1;
            }
            // MCP tool names are at most 128 characters.
            if end == start || end - start > 128 {
                continue;
            }
            let word = &text[start..end];
            if own.binary_search(&word).is_ok() {
                continue;
            }
            for k in self.known.iter().filter(|k| other(k)) {
                if glob_match(&k.tool, word) {
                    return Some(match &k.server {
                        Some(sv) => format!(
                            "mentions {word:?}, a tool of server {sv:?} (known_tools {sv}:{})",
                            k.tool
                        ),
                        None => format!(
                            "mentions {word:?}, a tool of another server (known_tools {})",
                            k.tool
                        ),
                    });
                }
            }
        }
        None
    }
}

/// The first two bytes of `t` at `i` as one number (0 past the end).
fn key2(t: &[u8], i: usize) -> u16 {
    let a = t.get(i).copied().unwrap_or(0) as u16;
    let b = t.get(i + 1).copied().unwrap_or(0) as u16;
    a << 8 | b
}

fn word_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

fn name_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'-' || c == b'.' || c == b'/'
}

fn trim_spaces(mut n: Vec<u8>) -> Vec<u8> {
    while n.last() == Some(&b' ') {
        n.pop();
    }
    if n.first() == Some(&b' ') {
        n.remove(0);
    }
    n
}

/// Writes `text` as the markup rule reads it: ASCII lower case, every run
/// of white space one space, `*` (Markdown emphasis) dropped, and no space
/// just inside `<`, `</` and `>`, so that `**Do  not**` reads `do not` and
/// `< IMPORTANT >` reads `<important>`.
pub fn normalize(text: &str, out: &mut Vec<u8>) {
    out.clear();
    out.reserve(text.len());
    for &c in text.as_bytes() {
        normalize_byte(out, c);
    }
}

/// Appends byte `c` of a text to its normalized form `out`; reports whether
/// it pushed a byte (a '>' may first pop the space before it).
fn normalize_byte(out: &mut Vec<u8>, c: u8) -> bool {
    match c {
        b' ' | b'\t' | b'\n' | b'\r' => {
            let n = out.len();
            let after_open = (n >= 1 && out[n - 1] == b'<')
                || (n >= 2 && out[n - 1] == b'/' && out[n - 2] == b'<');
            if after_open || n == 0 || out[n - 1] == b' ' {
                return false;
            }
            out.push(b' ');
        }
        b'*' => return false,
        b'>' => {
            if out.last() == Some(&b' ') {
                out.pop();
            }
            out.push(c);
        }
        _ => out.push(c.to_ascii_lowercase()),
    }
    true
}

/// The first invisible, bidi-control or control character of `text`, named
/// with its code point and byte offset.
pub fn invisible(text: &str) -> Option<String> {
    let mut prev = '\0';
    let mut chars = text.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        let next = chars.peek().map_or('\0', |&(_, n)| n);
        let kind = match c {
            '\t' | '\n' | '\r' => None,
            '\0'..='\u{1f}' | '\u{7f}'..='\u{9f}' => Some("control character"),
            '\u{61c}'
            | '\u{200e}'
            | '\u{200f}'
            | '\u{202a}'..='\u{202e}'
            | '\u{2066}'..='\u{2069}' => Some("bidi control"),
            '\u{ad}'
            | '\u{34f}'
            | '\u{115f}'
            | '\u{1160}'
            | '\u{17b4}'
            | '\u{17b5}'
            | '\u{180e}'
            | '\u{200b}'
            | '\u{200c}'
            | '\u{2060}'..='\u{2064}'
            | '\u{3164}'
            | '\u{feff}'
            | '\u{ffa0}'
            | '\u{fff9}'..='\u{fffb}'
            | '\u{1d173}'..='\u{1d17a}' => Some("invisible character"),
            // A joiner between two pictographs makes one emoji (a family, a
            // flag): keep that; anywhere else it hides a break.
            '\u{200d}' if pictograph(prev) && pictograph(next) => None,
            '\u{200d}' => Some("invisible character"),
            '\u{e0000}'..='\u{e007f}' => Some("tag character"),
            '\u{e0100}'..='\u{e01ef}' => Some("variation selector"),
            // One selector after a symbol picks its style (text or emoji);
            // a run of them carries data.
            '\u{fe00}'..='\u{fe0f}' if variation_selector(prev) => {
                Some("run of variation selectors")
            }
            _ => None,
        };
        if let Some(kind) = kind {
            return Some(format!("{kind} U+{:04X} at byte {at}", c as u32));
        }
        prev = c;
    }
    None
}

fn pictograph(c: char) -> bool {
    matches!(c, '\u{2600}'..='\u{27bf}' | '\u{1f000}'..='\u{1faff}' | '\u{fe0f}')
}

fn variation_selector(c: char) -> bool {
    matches!(c, '\u{fe00}'..='\u{fe0f}' | '\u{e0100}'..='\u{e01ef}')
}

/// The first long run of base64 (letters, digits, `+/=-_`, with upper and
/// lower case and digits: prose and identifiers rarely mix all three over
/// 40 characters) or of hex digits (with a digit and a letter).
pub fn blob(b: &[u8], min_base64: usize, min_hex: usize) -> Option<String> {
    runs(b, min_base64, min_hex).0
}

/// [`blob`], and whether the bytes looked at include one the invisible rule
/// needs to see (DEL, a control character but tab, line feed and carriage
/// return, or any non-ASCII byte). When a blob is found the scan stops
/// there, so the answer is then true: the rest is unknown.
fn runs(b: &[u8], min_base64: usize, min_hex: usize) -> (Option<String>, bool) {
    const DIGIT: u8 = 1;
    const LOWER: u8 = 2;
    const UPPER: u8 = 4;
    const NOT_HEX: u8 = 8;
    const HEX_LETTER: u8 = 16;
    let mut start = 0;
    let mut seen = 0u8;
    let mut odd = false;
    for i in 0..=b.len() {
        let class = match b.get(i) {
            Some(b'0'..=b'9') => DIGIT,
            Some(b'a'..=b'f') => LOWER | HEX_LETTER,
            Some(b'A'..=b'F') => UPPER | HEX_LETTER,
            Some(b'g'..=b'z') => LOWER | NOT_HEX,
            Some(b'G'..=b'Z') => UPPER | NOT_HEX,
            Some(b'+' | b'/' | b'=' | b'-' | b'_') => NOT_HEX,
            Some(&c) => {
                odd |= c >= 0x7f || (c < 0x20 && c != b'\t' && c != b'\n' && c != b'\r');
                0
            }
            None => 0,
        };
        if class != 0 {
            seen |= class;
            continue;
        }
        let len = i - start;
        if len >= min_hex && seen & NOT_HEX == 0 && seen & DIGIT != 0 && seen & HEX_LETTER != 0 {
            return (
                Some(format!("hex run of {len} characters at byte {start}")),
                true,
            );
        }
        if len >= min_base64 && seen & (DIGIT | LOWER | UPPER) == DIGIT | LOWER | UPPER {
            return (
                Some(format!("base64 run of {len} characters at byte {start}")),
                true,
            );
        }
        start = i + 1;
        seen = 0;
    }
    (None, odd)
}

/// Reports whether `text` matches `glob`, where `*` matches any run of
/// characters and `?` any one byte. Iterative, with one backtrack point: at
/// most len(glob) * len(text) steps, and both are bounded (a glob by the
/// config's item size, a text word by 128 bytes).
pub fn glob_match(glob: &str, text: &str) -> bool {
    let (p, s) = (glob.as_bytes(), text.as_bytes());
    let (mut pi, mut si) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while si < s.len() {
        if pi < p.len() && (p[pi] == b'?' || p[pi] == s[si]) {
            pi += 1;
            si += 1;
        } else if pi < p.len() && p[pi] == b'*' {
            star = Some((pi, si));
            pi += 1;
        } else if let Some((sp, ss)) = star {
            pi = sp + 1;
            si = ss + 1;
            star = Some((sp, ss + 1));
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|&c| c == b'*')
}
