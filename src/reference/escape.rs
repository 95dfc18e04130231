//! Which bytes a JSON string escapes (`"`, `\` and control characters below 0x20), found eight
//! at a time: the decoder looks for the end of a plain string, the dispatcher notes once whether
//! an id needs escaping, and the encoder copies whole what needs none.

/// Whether JSON escapes the byte, as serde_json does.
#[inline]
fn escapes(b: u8) -> bool {
    b < 0x20 || b == b'"' || b == b'\\'
}

/// The index of the first byte of `bytes` that JSON escapes, or `bytes.len()` if none does.
#[inline]
pub(crate) fn plain_len(bytes: &[u8]) -> usize {
    let mut j = 0;
    // Eight bytes at a time while they last, then byte by byte.
    while let Some(chunk) = bytes.get(j..j + 8) {
        let mut word = [0; 8];
        word.copy_from_slice(chunk);
        match stop_in(u64::from_le_bytes(word)) {
            Some(k) => return j + k,
            None => j += 8,
        }
    }
    j + bytes
        .get(j..)
        .unwrap_or(&[])
        .iter()
        .position(|&b| escapes(b))
        .unwrap_or(bytes.len().saturating_sub(j))
}

/// The index of the first byte of `word` (read little-endian) that JSON escapes. Each test
/// below may also flag bytes after a true match (a borrow carries upwards), never before one, so
/// the lowest flag of all is exact.
#[inline]
fn stop_in(word: u64) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let zero = |x: u64| x.wrapping_sub(ONES) & !x & HIGH;
    let quote = zero(word ^ (ONES * u64::from(b'"')));
    let backslash = zero(word ^ (ONES * u64::from(b'\\')));
    let control = word.wrapping_sub(ONES * 0x20) & !word & HIGH;
    let any = quote | backslash | control;
    (any != 0).then(|| (any.trailing_zeros() / 8) as usize)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prng::Prng;

    #[test]
    fn the_first_escaped_byte_is_found_at_any_place_and_among_any_bytes() {
        let mut p = Prng::new(7);
        let pick = [
            b'a', b'"', b'\\', 0x00, 0x1f, 0x20, 0x7f, 0x80, 0xff, b'!', b'#', b']',
        ];
        for _ in 0..20_000 {
            let len = p.below(40) as usize;
            let bytes: Vec<u8> = (0..len)
                .map(|_| pick[p.below(pick.len() as u64) as usize])
                .collect();
            let want = bytes.iter().position(|&b| escapes(b)).unwrap_or(len);
            assert_eq!(plain_len(&bytes), want, "{bytes:?}");
        }
        for b in 0..=255u8 {
            assert_eq!(escapes(b), b < 0x20 || b == b'"' || b == b'\\');
            let mut bytes = vec![b'x'; 17];
            bytes[9] = b;
            assert_eq!(plain_len(&bytes), if escapes(b) { 9 } else { 17 }, "{b}");
        }
    }
}
