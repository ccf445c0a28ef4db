use tree_walk::MAX_ENTRIES;

const MAX_DEPTH: usize = 64;

#[test]
fn documented_limits() {
    assert_eq!(MAX_DEPTH, 64);
    assert_eq!(MAX_ENTRIES, 100_000);
}
