use super::*;

#[test]
fn plain() {
    assert_eq!(parse("1.2.3"), Some(Version { major: 1, minor: 2, patch: 3 }));
    assert_eq!(parse("1.2"), None);
}

#[test]
fn leading_v() {
    assert_eq!(parse("v2.0.1"), Some(Version { major: 2, minor: 0, patch: 1 }));
}
