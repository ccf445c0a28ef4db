use tiny_bank::account::Account;
use tiny_bank::{fees, transfer_fee as fee};

#[test]
fn deposit_adds_to_balance() {
    let mut acct = Account::new(100);
    acct.deposit(50);
    assert_eq!(acct.balance(), 150);
}

#[test]
fn fee_for_small_transfer() {
    assert_eq!(fee(500), 5);
    assert_eq!(fees::transfer_fee(500), 5);
}

#[test]
fn rounds_by_crate_path() {
    assert_eq!(tiny_bank::round_cents(250), 2);
}
