use base62::{decode, encode};

#[test]
fn encodes() {
    assert_eq!(encode(0), "0");
    assert_eq!(encode(61), "z");
    assert_eq!(encode(62), "10");
}

#[test]
fn round_trip() {
    for n in [1, 35, 36, 61, 3844, 1_000_000_007] {
        assert_eq!(decode(&encode(n)), Some(n), "n = {n}");
    }
}
