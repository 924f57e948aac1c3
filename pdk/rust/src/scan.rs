//! Fast byte search for plugins that look through large texts.
//!
//! Why this exists: mcphost runs every call with a timeout, and with a
//! timeout wazero checks for termination at every loop header of the guest,
//! an exit to Go that costs about 22 ns (against 0.3 ns without). A loop
//! that visits a 100 KB text byte by byte costs over 2 ms per pass. These
//! functions look at 32 bytes per iteration (four 64-bit words, SWAR), so
//! scanning for rare bytes costs a small fraction of that; do the per-byte
//! work only around the positions they return.

const LO: u64 = 0x0101_0101_0101_0101;
const HI: u64 = 0x8080_8080_8080_8080;

#[inline(always)]
fn splat(b: u8) -> u64 {
    LO * b as u64
}

/// The high bit of every byte of `x` that is zero, exactly: no carry crosses
/// bytes, so there are no false positives (unlike the classic `(x - LO) & !x`).
#[inline(always)]
fn zero_bytes(x: u64) -> u64 {
    !(((x & !HI) + !HI) | x) & HI
}

#[inline(always)]
fn word(b: &[u8], i: usize) -> u64 {
    debug_assert!(i + 8 <= b.len());
    // SAFETY: callers keep i + 8 <= b.len().
    u64::from_le(unsafe { (b.as_ptr().add(i) as *const u64).read_unaligned() })
}

/// The first position at or after `from` whose byte `slow` accepts; `mask`
/// is the same test on a word (high bit of each accepted byte).
#[inline(always)]
fn find_by<M: Fn(u64) -> u64, S: Fn(u8) -> bool>(
    hay: &[u8],
    from: usize,
    mask: M,
    slow: S,
) -> Option<usize> {
    let mut i = from;
    while i + 32 <= hay.len() {
        let (a, b, c, d) = (
            mask(word(hay, i)),
            mask(word(hay, i + 8)),
            mask(word(hay, i + 16)),
            mask(word(hay, i + 24)),
        );
        if a | b | c | d != 0 {
            let (off, m) = if a != 0 {
                (0, a)
            } else if b != 0 {
                (8, b)
            } else if c != 0 {
                (16, c)
            } else {
                (24, d)
            };
            return Some(i + off + (m.trailing_zeros() / 8) as usize);
        }
        i += 32;
    }
    (i.min(hay.len())..hay.len()).find(|&j| slow(hay[j]))
}

/// The first byte at or after `from` that a JSON string must escape: '"',
/// '\\' or a control character below 0x20.
pub fn find_json_escape(hay: &[u8], from: usize) -> Option<usize> {
    let (quote, backslash) = (splat(b'"'), splat(b'\\'));
    find_by(
        hay,
        from,
        |w| {
            // Bytes below 0x20, exactly: (v & 0x7f) + 0x60 keeps bit 7 clear
            // only for v < 0x20 (and v < 0x80), without carries.
            let below = !(((w & !HI) + splat(0x60)) | w) & HI;
            below | zero_bytes(w ^ quote) | zero_bytes(w ^ backslash)
        },
        |b| b < 0x20 || b == b'"' || b == b'\\',
    )
}

// The masks are written out per needle count on purpose: a loop over the
// needles is not unrolled at opt-level "s", and each of its iterations would
// pay the termination check.

/// The first position at or after `from` holding `needle`.
pub fn find_byte(hay: &[u8], from: usize, needle: u8) -> Option<usize> {
    let n = splat(needle);
    find_by(hay, from, |w| zero_bytes(w ^ n), |b| b == needle)
}

/// The first position at or after `from` holding either byte.
pub fn find_byte2(hay: &[u8], from: usize, n1: u8, n2: u8) -> Option<usize> {
    let (s1, s2) = (splat(n1), splat(n2));
    find_by(
        hay,
        from,
        |w| zero_bytes(w ^ s1) | zero_bytes(w ^ s2),
        |b| b == n1 || b == n2,
    )
}

/// The first position at or after `from` holding any of the three bytes.
pub fn find_byte3(hay: &[u8], from: usize, n1: u8, n2: u8, n3: u8) -> Option<usize> {
    let (s1, s2, s3) = (splat(n1), splat(n2), splat(n3));
    find_by(
        hay,
        from,
        |w| zero_bytes(w ^ s1) | zero_bytes(w ^ s2) | zero_bytes(w ^ s3),
        |b| b == n1 || b == n2 || b == n3,
    )
}

/// The first occurrence of `needle` at or after `from`.
pub fn find_bytes(hay: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    let (&first, rest) = needle.split_first()?;
    let mut at = from;
    while let Some(i) = find_byte(hay, at, first) {
        if hay.len() - i < needle.len() {
            return None;
        }
        if &hay[i + 1..i + needle.len()] == rest {
            return Some(i);
        }
        at = i + 1;
    }
    None
}

/// How many times `needle` occurs in `hay` (e.g. newlines).
pub fn count_byte(hay: &[u8], needle: u8) -> usize {
    let n = splat(needle);
    let mut count = 0usize;
    let mut i = 0;
    while i + 32 <= hay.len() {
        count += (zero_bytes(word(hay, i) ^ n).count_ones()
            + zero_bytes(word(hay, i + 8) ^ n).count_ones()
            + zero_bytes(word(hay, i + 16) ^ n).count_ones()
            + zero_bytes(word(hay, i + 24) ^ n).count_ones()) as usize;
        i += 32;
    }
    count + hay[i..].iter().filter(|&&b| b == needle).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naive_find(hay: &[u8], from: usize, set: &[u8]) -> Option<usize> {
        (from..hay.len()).find(|&i| set.contains(&hay[i]))
    }

    #[test]
    fn zero_bytes_is_exact() {
        for v in 0..=255u8 {
            for w in [0u8, 1, 0x80, 0xff, v] {
                let x = u64::from_le_bytes([v, w, 0, v, 0x80, 1, w, 0xff]);
                let want: u64 = x
                    .to_le_bytes()
                    .iter()
                    .enumerate()
                    .map(|(i, &b)| if b == 0 { 0x80u64 << (8 * i) } else { 0 })
                    .sum();
                assert_eq!(zero_bytes(x), want, "{x:#018x}");
            }
        }
    }

    #[test]
    fn agrees_with_naive_search() {
        // Every position and length around the 32-byte blocks.
        let base: Vec<u8> = (0..200u32)
            .map(|i| b"abcdefgh-_xyz\n\x80\xff\"\\\x1f \x7f\x9f\xa0\x00"[(i * 7 % 24) as usize])
            .collect();
        for len in [0, 1, 7, 8, 31, 32, 33, 64, 100, 200] {
            let hay = &base[..len];
            for from in 0..=len {
                assert_eq!(find_byte(hay, from, b'-'), naive_find(hay, from, b"-"));
                assert_eq!(find_byte(hay, from, 0x80), naive_find(hay, from, &[0x80]));
                assert_eq!(
                    find_byte2(hay, from, b'_', b'\n'),
                    naive_find(hay, from, b"_\n")
                );
                assert_eq!(
                    find_byte3(hay, from, b'x', 0xff, b'q'),
                    naive_find(hay, from, b"x\xffq")
                );
            }
            assert_eq!(
                count_byte(hay, b'\n'),
                hay.iter().filter(|&&b| b == b'\n').count()
            );
            assert_eq!(
                count_byte(hay, 0xff),
                hay.iter().filter(|&&b| b == 0xff).count()
            );
            for from in 0..=len {
                let want =
                    (from..len).find(|&i| hay[i] < 0x20 || hay[i] == b'"' || hay[i] == b'\\');
                assert_eq!(find_json_escape(hay, from), want, "len {len} from {from}");
            }
        }
        assert_eq!(find_byte(b"abc", 5, b'a'), None, "from past the end");
    }

    #[test]
    fn find_bytes_cases() {
        let hay = b"--- ----BEGIN -----BEGIN KEY";
        assert_eq!(find_bytes(hay, 0, b"-----BEGIN"), Some(14));
        assert_eq!(find_bytes(hay, 15, b"-----BEGIN"), None);
        assert_eq!(find_bytes(hay, 0, b"KEY"), Some(25));
        assert_eq!(find_bytes(hay, 0, b"KEYS"), None);
        assert_eq!(find_bytes(hay, 0, b""), None);
    }
}
