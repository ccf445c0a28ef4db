//! A tiny bank: accounts and transfer fees.
pub mod account;
pub mod fees;

pub use fees::transfer_fee;

/// Rounds cents down to whole units.
pub fn round_cents(cents: i64) -> i64 {
    cents / 10
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_cents(_: i64) -> i64 {
        unreachable!("shadowing helper, never the target")
    }

    #[test]
    fn rounds_down() {
        assert_eq!(super::round_cents(250), 2);
    }
}
