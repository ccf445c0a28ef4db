use super::*;

#[test]
fn fee_is_one_percent() {
    assert_eq!(transfer_fee(500), 5);
}
