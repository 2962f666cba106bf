//! The SHA-256 digest that names a patch's text in snapshot metadata (FIPS 180-4).
//!
//! Through the `sha2` crate, which the dependency tree builds already and which uses the
//! CPU's SHA instructions: a patch of tens of megabytes is hashed in milliseconds.

use std::fmt;
use std::str::FromStr;

/// The SHA-256 of a patch's text, as recorded in a snapshot (`llm-apply-patch-sha256`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PatchDigest(pub [u8; 32]);

impl PatchDigest {
    /// Hash the patch text exactly as it was received.
    pub fn of(bytes: &[u8]) -> PatchDigest {
        PatchDigest(sha256(bytes))
    }

    /// The digest of `parts` one after another, as if joined (without joining them).
    pub fn of_parts<'a>(parts: impl Iterator<Item = &'a [u8]>) -> PatchDigest {
        use sha2::Digest;
        let mut h = sha2::Sha256::new();
        for p in parts {
            h.update(p);
        }
        PatchDigest(h.finalize().into())
    }
}

impl fmt::Display for PatchDigest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for b in self.0 {
            write!(f, "{b:02x}")?;
        }
        Ok(())
    }
}

/// Why a string is not a digest.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("not a sha256 digest (64 lower-case hex digits): {0:?}")]
pub struct ParseDigestError(pub String);

impl FromStr for PatchDigest {
    type Err = ParseDigestError;

    fn from_str(s: &str) -> Result<PatchDigest, ParseDigestError> {
        let bad = || ParseDigestError(s.to_string());
        let bytes = s.as_bytes();
        if bytes.len() != 64 {
            return Err(bad());
        }
        let mut out = [0u8; 32];
        for (i, pair) in bytes.chunks_exact(2).enumerate() {
            let hi = hex_value(pair[0]).ok_or_else(bad)?;
            let lo = hex_value(pair[1]).ok_or_else(bad)?;
            out[i] = (hi << 4) | lo;
        }
        Ok(PatchDigest(out))
    }
}

/// Lower-case only, so that one digest has exactly one spelling in metadata.
fn hex_value(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        _ => None,
    }
}

fn sha256(data: &[u8]) -> [u8; 32] {
    use sha2::Digest;
    sha2::Sha256::digest(data).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(bytes: &[u8]) -> String {
        PatchDigest::of(bytes).to_string()
    }

    #[test]
    fn parts_hash_as_their_concatenation() {
        let parts: [&[u8]; 3] = [b"diff --git", b"", b" a/x b/x\n"];
        assert_eq!(
            PatchDigest::of_parts(parts.into_iter()),
            PatchDigest::of(b"diff --git a/x b/x\n")
        );
    }

    #[test]
    fn matches_the_published_test_vectors() {
        assert_eq!(
            hex(b""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        assert_eq!(
            hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        // 56 bytes: the padding no longer fits in the same block.
        assert_eq!(
            hex(b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        );
        assert_eq!(
            hex(&vec![b'a'; 1_000_000]),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"
        );
    }

    #[test]
    fn padding_edge_lengths_agree_with_sha256sum() {
        // 55, 63, 64, 119 and 120 bytes sit on each side of the one-or-two padding blocks.
        let expected = [
            (
                55,
                "d5e285683cd4efc02d021a5c62014694958901005d6f71e89e0989fac77e4072",
            ),
            (
                63,
                "75220b47218278e656f2013bb8f0c455a25eaf01e86c64924e9d48d89776d6f2",
            ),
            (
                64,
                "7ce100971f64e7001e8fe5a51973ecdfe1ced42befe7ee8d5fd6219506b5393c",
            ),
            (
                119,
                "000b48d4edf0fa7bee3c6236ecd2785baa5db4eeb8bb54341b029e0d9fa5fb0c",
            ),
            (
                120,
                "13f05a0b594787f5ecd315edc96141bd3243203d1b7d4f0836f37308b276ba98",
            ),
        ];
        for (len, digest) in expected {
            assert_eq!(hex(&vec![b'x'; len]), digest, "length {len}");
        }
    }

    #[test]
    fn digest_text_round_trips_and_rejects_upper_case() {
        let d = PatchDigest::of(b"patch");
        assert_eq!(d.to_string().parse::<PatchDigest>(), Ok(d));
        assert!(d.to_string().to_uppercase().parse::<PatchDigest>().is_err());
        assert!("abc".parse::<PatchDigest>().is_err());
    }
}
