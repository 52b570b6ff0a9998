//! The Internet checksum (RFC 1071): the one's complement of the one's complement sum of
//! 16-bit big-endian words. IPv4, TCP and UDP use it, and RDP version 2 (RFC 1151: "the
//! 16-bit TCP checksum").

/// Sum of big-endian 16-bit words (odd trailing byte padded with zero), unfolded.
pub fn sum(bytes: &[u8]) -> u32 {
    bytes.chunks(2).map(|w| u32::from(w[0]) << 8 | u32::from(*w.get(1).unwrap_or(&0))).sum()
}

/// Folds carries into 16 bits: the one's complement sum (RFC 1071).
pub fn fold(mut s: u32) -> u16 {
    while s > 0xffff {
        s = (s & 0xffff) + (s >> 16);
    }
    s as u16
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc1071_example() {
        // RFC 1071 section 3: the words 0001 f203 f4f5 f6f7 sum to ddf2 once folded.
        let b = [0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7];
        assert_eq!(fold(sum(&b)), 0xddf2);
        assert_eq!(sum(&[0xab]), 0xab00, "an odd byte is padded on the right");
    }
}
