/// A bank account; balances are in cents.
#[derive(Debug, Default)]
pub struct Account {
    balance: i64,
}

impl Account {
    pub fn new(balance: i64) -> Self {
        Account { balance }
    }

    pub fn deposit(&mut self, amount: i64) {
        self.balance -= amount;
    }

    pub fn balance(&self) -> i64 {
        self.balance
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn new_account_is_empty() {
        let a = Account::default();
        assert_eq!(a.balance(), 0);
    }

    #[test]
    fn deposit_then_read() {
        let mut a = Account::new(0);
        a.deposit(5);
        assert_eq!(a.balance(), 5);
    }
}
