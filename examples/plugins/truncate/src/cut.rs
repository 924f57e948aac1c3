//! Truncation of a sequence of texts as one document: the texts share one
//! byte and one line budget, in order; the text where the budget runs out is
//! cut and ends with a marker, and the texts after it are dropped.
//!
//! The marker counts against the budget, so a truncated document never
//! exceeds the limits (as long as the byte limit leaves room for the marker,
//! which the configuration enforces) and truncating again changes nothing.
//!
//! Newlines are counted and found with `mcphost_pdk::scan` (32 bytes per
//! loop iteration), and each text is counted once: under mcphost's call
//! timeout every wasm loop iteration costs ~22 ns.

use mcphost_pdk::scan::{count_byte, find_byte};

/// The caps; `None` means no cap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    pub max_bytes: Option<usize>,
    pub max_lines: Option<usize>,
}

/// What a truncation did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cut {
    /// The text that was cut and carries the marker; the caller drops the
    /// texts after it.
    pub index: usize,
    pub kept_bytes: usize,
    pub total_bytes: usize,
    /// Line counts are 0 without a line cap (not counted).
    pub kept_lines: usize,
    pub total_lines: usize,
}

/// Lines as an editor counts them: a final line without '\n' counts, an
/// empty text has none.
pub fn count_lines(s: &str) -> usize {
    count_byte(s.as_bytes(), b'\n') + usize::from(!s.is_empty() && !s.ends_with('\n'))
}

/// The position just after the `n`-th newline (n >= 1), if there is one.
fn after_nth_newline(s: &str, n: usize) -> Option<usize> {
    let mut at = 0;
    for _ in 0..n {
        at = find_byte(s.as_bytes(), at, b'\n')? + 1;
    }
    Some(at)
}

/// The largest char boundary at or below `i`: a cut never splits a UTF-8
/// character.
pub fn floor_char_boundary(s: &str, i: usize) -> usize {
    if i >= s.len() {
        return s.len();
    }
    let mut i = i;
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// How many leading bytes of `s` (which has `s_lines` lines) fit in the
/// remaining budgets.
fn keep_len(s: &str, s_lines: usize, bytes: Option<usize>, lines: Option<usize>) -> usize {
    let mut k = s.len();
    if let Some(l) = lines {
        if s_lines > l {
            // Just after the l-th newline (0 lines: nothing).
            k = if l == 0 {
                0
            } else {
                after_nth_newline(s, l).unwrap_or(s.len())
            };
        }
    }
    if let Some(b) = bytes {
        if k > b {
            k = floor_char_boundary(s, b);
        }
    }
    k
}

/// The marker text, without the newline that may precede it.
pub fn marker(kept_bytes: usize, total_bytes: usize, lines: Option<(usize, usize)>) -> String {
    match lines {
        None => format!("[truncated: kept {kept_bytes} of {total_bytes} bytes]"),
        Some((kl, tl)) => {
            format!("[truncated: kept {kept_bytes} of {total_bytes} bytes, {kl} of {tl} lines]")
        }
    }
}

/// Truncates `texts` in place when together they exceed `limits`; `None`
/// when they fit (nothing changed).
pub fn truncate_texts(texts: &mut [&mut String], limits: Limits) -> Option<Cut> {
    let total_bytes: usize = texts.iter().map(|s| s.len()).sum();
    // Lines matter only with a line cap: skip the counting pass otherwise.
    let with_lines = limits.max_lines.is_some();
    let lines: Vec<usize> = if with_lines {
        texts.iter().map(|s| count_lines(s)).collect()
    } else {
        vec![0; texts.len()]
    };
    let total_lines: usize = lines.iter().sum();
    let over = limits.max_bytes.map_or(false, |m| total_bytes > m)
        || limits.max_lines.map_or(false, |m| total_lines > m);
    if !over {
        return None;
    }
    // Room for "\n" + marker; kept <= total, so totals bound the digits.
    let reserve = 1 + marker(
        total_bytes,
        total_bytes,
        if with_lines {
            Some((total_lines, total_lines))
        } else {
            None
        },
    )
    .len();
    let mut bytes_left = limits.max_bytes.map(|m| m.saturating_sub(reserve));
    // The marker takes a line of its own.
    let mut lines_left = limits.max_lines.map(|m| m.saturating_sub(1));

    let (mut kept_bytes, mut kept_lines) = (0, 0);
    let mut index = texts.len() - 1;
    for (i, s) in texts.iter_mut().enumerate() {
        let k = keep_len(s, lines[i], bytes_left, lines_left);
        let cut = k < s.len();
        s.truncate(k);
        let l = if !with_lines {
            0
        } else if cut {
            count_lines(s)
        } else {
            lines[i]
        };
        kept_bytes += k;
        kept_lines += l;
        if cut {
            index = i;
            break;
        }
        bytes_left = bytes_left.map(|b| b - k);
        lines_left = lines_left.map(|r| r - l);
    }

    let m = marker(
        kept_bytes,
        total_bytes,
        if with_lines {
            Some((kept_lines, total_lines))
        } else {
            None
        },
    );
    let s = &mut texts[index];
    if !s.is_empty() && !s.ends_with('\n') {
        s.push('\n');
    }
    s.push_str(&m);
    Some(Cut {
        index,
        kept_bytes,
        total_bytes,
        kept_lines,
        total_lines,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(s: &str, max_bytes: Option<usize>, max_lines: Option<usize>) -> String {
        let mut s = s.to_string();
        truncate_texts(
            &mut [&mut s],
            Limits {
                max_bytes,
                max_lines,
            },
        );
        s
    }

    #[test]
    fn fits_unchanged() {
        assert_eq!(one("hello", Some(5), None), "hello");
        assert_eq!(one("a\nb\n", None, Some(2)), "a\nb\n");
        assert_eq!(one("", Some(0), Some(0)), "");
        assert_eq!(one(&"x".repeat(10_000), None, None), "x".repeat(10_000));
    }

    #[test]
    fn bytes_with_marker_inside_the_cap() {
        let s = "x".repeat(1000);
        let got = one(&s, Some(100), None);
        let m = "[truncated: kept 63 of 1000 bytes]";
        assert_eq!(got, format!("{}\n{m}", "x".repeat(63)));
        assert!(got.len() <= 100);
        assert_eq!(one(&got, Some(100), None), got, "idempotent");
    }

    #[test]
    fn never_splits_utf8() {
        // 'é' is 2 bytes, '🦀' 4: every cut position must fall on a boundary.
        let s = "é🦀a".repeat(300);
        for max in 64..200 {
            let got = one(&s, Some(max), None);
            assert!(got.len() <= max, "max {max}: {} bytes", got.len());
            let body = got.rsplit_once('\n').unwrap().0;
            assert!(s.starts_with(body), "max {max}: kept text is not a prefix");
            let kept: usize = body.len();
            assert!(
                got.ends_with(&format!("[truncated: kept {kept} of {} bytes]", s.len())),
                "{got}"
            );
        }
    }

    #[test]
    fn lines() {
        let s: String = (1..=10).map(|i| format!("line {i}\n")).collect();
        assert_eq!(
            one(&s, None, Some(3)),
            "line 1\nline 2\n[truncated: kept 14 of 71 bytes, 2 of 10 lines]"
        );
        assert_eq!(
            one("a\nb\nc", None, Some(2)),
            "a\n[truncated: kept 2 of 5 bytes, 1 of 3 lines]"
        );
        assert_eq!(
            one("a\nb\nc", None, Some(1)),
            "[truncated: kept 0 of 5 bytes, 0 of 3 lines]"
        );
        assert_eq!(count_lines("a\nb\nc"), 3);
        assert_eq!(count_lines("a\n"), 1);
        assert_eq!(count_lines(""), 0);
        assert_eq!(count_lines("\n\n"), 2);
        let got = one(&s, None, Some(3));
        assert_eq!(count_lines(&got), 3);
        assert_eq!(one(&got, None, Some(3)), got, "idempotent");
    }

    #[test]
    fn bytes_and_lines_whichever_first() {
        let long_lines: String = (0..5).map(|_| format!("{}\n", "y".repeat(100))).collect();
        let got = one(&long_lines, Some(200), Some(4));
        // Bytes bite first: part of line 2 (the cut line gets a newline).
        assert!(got.len() <= 200);
        assert!(got.ends_with("of 505 bytes, 2 of 5 lines]"), "{got}");
        let got = one(&long_lines, Some(4000), Some(3));
        assert_eq!(
            got,
            format!(
                "{0}\n{0}\n[truncated: kept 202 of 505 bytes, 2 of 5 lines]",
                "y".repeat(100)
            )
        );
    }

    #[test]
    fn shared_budget_across_texts() {
        let mut a = "a".repeat(60);
        let mut b = "b".repeat(60);
        let mut c = "c".repeat(60);
        let cut = truncate_texts(
            &mut [&mut a, &mut b, &mut c],
            Limits {
                max_bytes: Some(128),
                max_lines: None,
            },
        )
        .unwrap();
        assert_eq!(cut.index, 1);
        assert_eq!((cut.kept_bytes, cut.total_bytes), (93, 180));
        assert_eq!(a, "a".repeat(60), "first text fits whole");
        assert_eq!(
            b,
            format!("{}\n[truncated: kept 93 of 180 bytes]", "b".repeat(33))
        );
        assert_eq!(a.len() + b.len(), 127);
        assert_eq!(c, "c".repeat(60), "the caller drops texts after the cut");
    }

    #[test]
    fn budget_ends_on_a_text_boundary() {
        let mut a = "a\n".to_string();
        let mut b = "b\n".to_string();
        let cut = truncate_texts(
            &mut [&mut a, &mut b],
            Limits {
                max_bytes: None,
                max_lines: Some(1),
            },
        )
        .unwrap();
        assert_eq!(cut.index, 0);
        assert_eq!(a, "[truncated: kept 0 of 4 bytes, 0 of 2 lines]");
        let mut a = "a\n".to_string();
        let mut b = "b\nc\n".to_string();
        let cut = truncate_texts(
            &mut [&mut a, &mut b],
            Limits {
                max_bytes: None,
                max_lines: Some(2),
            },
        )
        .unwrap();
        assert_eq!(cut.index, 1);
        assert_eq!(
            (a.as_str(), b.as_str()),
            ("a\n", "[truncated: kept 2 of 6 bytes, 1 of 3 lines]")
        );
    }
}
