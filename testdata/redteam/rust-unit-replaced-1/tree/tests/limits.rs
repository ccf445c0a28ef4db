use tree_walk::{MAX_DEPTH, MAX_ENTRIES};

#[test]
fn documented_limits() {
    assert_eq!(MAX_DEPTH, 64);
    assert_eq!(MAX_ENTRIES, 100_000);
}
