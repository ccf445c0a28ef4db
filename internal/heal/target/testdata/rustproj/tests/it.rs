use rustproj::add;

#[test]
fn adds_two() {
    assert_eq!(add(2, 3), 5);
}
