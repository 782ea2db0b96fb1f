//! The signature a receiver checks a delivery by: HMAC-SHA256 of the
//! moment of sending and the body, as Stripe signs its webhooks.

use hmac::{Hmac, Mac};
use sha2::Sha256;
use subtle::ConstantTimeEq;

/// The header that carries the signature.
pub const SIGNATURE_HEADER: &str = "Kenning-Signature";

/// How far apart the signing and the checking clocks may be, in seconds,
/// unless the receiver chooses otherwise: older deliveries are refused, so
/// a captured request cannot be replayed later.
pub const DEFAULT_TOLERANCE_SECS: i64 = 300;

/// The signature header's value for `body` sent at `timestamp` (Unix
/// seconds) with `secret`: `t=<timestamp>,v1=<signature>`, the signature
/// being the lower-case hex HMAC-SHA256, keyed with `secret`, of the
/// timestamp's decimal digits, a full stop, and the body's bytes.
pub fn sign(secret: &[u8], timestamp: i64, body: &[u8]) -> String {
    // HMAC takes a key of any length, so there is always a signature; an
    // empty one, which no receiver accepts, would only stand in for a
    // signing library that broke its contract.
    let signature = signature(secret, timestamp, body).unwrap_or_default();
    format!("t={timestamp},v1={signature}")
}

/// Whether `header` (a [`SIGNATURE_HEADER`] value) signs `body` with
/// `secret`, at a moment at most `tolerance_secs` from `now` (Unix
/// seconds). Of several `v1` signatures (while a secret is being
/// replaced), one matching suffices; other schemes are ignored. The
/// signatures are compared in constant time.
pub fn verify(header: &str, secret: &[u8], body: &[u8], now: i64, tolerance_secs: i64) -> bool {
    let mut timestamp = None;
    let mut candidates = Vec::new();
    for item in header.split(',') {
        match item.trim().split_once('=') {
            Some(("t", value)) if timestamp.is_none() => timestamp = value.parse::<i64>().ok(),
            Some(("v1", value)) => candidates.push(value),
            _ => {}
        }
    }
    let Some(timestamp) = timestamp else {
        return false;
    };
    let Ok(tolerance) = u64::try_from(tolerance_secs) else {
        return false;
    };
    if now.abs_diff(timestamp) > tolerance {
        return false;
    }
    let Some(expected) = signature(secret, timestamp, body) else {
        return false;
    };
    candidates.iter().fold(false, |found, candidate| {
        // Every candidate is compared, so the time taken does not tell
        // which one matched.
        found | bool::from(expected.as_bytes().ct_eq(candidate.as_bytes()))
    })
}

fn signature(secret: &[u8], timestamp: i64, body: &[u8]) -> Option<String> {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret).ok()?;
    mac.update(timestamp.to_string().as_bytes());
    mac.update(b".");
    mac.update(body);
    Some(format!("{:x}", mac.finalize().into_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECRET: &[u8] = b"whsec_test";
    const BODY: &[u8] = br#"{"specversion":"1.0"}"#;
    const T: i64 = 1_700_000_000;

    #[test]
    fn the_signature_is_hmac_sha256_of_timestamp_dot_body_in_hex() {
        // Computed apart from this crate:
        // printf '1700000000.{"a":1}' | openssl dgst -sha256 -hmac whsec_test
        assert_eq!(
            sign(SECRET, T, br#"{"a":1}"#),
            "t=1700000000,v1=38877139021993b830af32feea6e18a8da83eb2f6e49ee50bd9e4cf4ca4d3789"
        );
    }

    #[test]
    fn a_signature_verifies_within_the_tolerance() {
        let header = sign(SECRET, T, BODY);
        assert!(header.starts_with("t=1700000000,v1="));
        assert_eq!(header.len(), "t=1700000000,v1=".len() + 64);
        assert!(verify(&header, SECRET, BODY, T, 0));
        assert!(verify(
            &header,
            SECRET,
            BODY,
            T + 300,
            DEFAULT_TOLERANCE_SECS
        ));
        assert!(verify(
            &header,
            SECRET,
            BODY,
            T - 300,
            DEFAULT_TOLERANCE_SECS
        ));
    }

    #[test]
    fn a_tampered_body_a_wrong_secret_or_an_old_timestamp_fails() {
        let header = sign(SECRET, T, BODY);
        assert!(!verify(
            &header,
            SECRET,
            br#"{"specversion":"1.1"}"#,
            T,
            300
        ));
        assert!(!verify(&header, b"whsec_other", BODY, T, 300));
        assert!(!verify(&header, SECRET, BODY, T + 301, 300));
        assert!(!verify(&header, SECRET, BODY, T - 301, 300));
        assert!(!verify(&header, SECRET, BODY, T, -1));
        // The timestamp is signed: moving it forward breaks the signature.
        let moved = header.replace("t=1700000000", "t=1700000300");
        assert!(!verify(&moved, SECRET, BODY, T + 300, 300));
    }

    #[test]
    fn a_malformed_header_fails() {
        let header = sign(SECRET, T, BODY);
        let v1 = header.split_once(",v1=").unwrap().1;
        for bad in [
            "",
            "garbage",
            &format!("v1={v1}"),
            &format!("t=soon,v1={v1}"),
            &format!("t={T}"),
            &format!("t={T},v1="),
            &format!("t={T},v0={v1}"),
            &format!("t={T},v1={}", v1.to_uppercase()),
        ] {
            assert!(!verify(bad, SECRET, BODY, T, 300), "{bad}");
        }
    }

    #[test]
    fn any_matching_signature_of_several_verifies() {
        let old = sign(b"old secret", T, BODY);
        let new = sign(SECRET, T, BODY);
        let old_v1 = old.split_once(",v1=").unwrap().1;
        let new_v1 = new.split_once(",v1=").unwrap().1;
        let both = format!("t={T}, v1={old_v1}, v0=ignored, v1={new_v1}");
        assert!(verify(&both, SECRET, BODY, T, 300));
        assert!(verify(&both, b"old secret", BODY, T, 300));
        assert!(!verify(&both, b"third", BODY, T, 300));
    }
}
