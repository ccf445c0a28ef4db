/// The fee for a transfer, in cents: 1%, free from 10 000.
pub fn transfer_fee(amount: i64) -> i64 {
    if amount >= 10_000 {
        0
    } else {
        amount / 10
    }
}

#[cfg(test)]
mod tests;
