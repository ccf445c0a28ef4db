pub struct Account {
    balance: u32,
}

impl Account {
    pub fn new(balance: u32) -> Self {
        Account { balance }
    }

    pub fn withdraw(&mut self, amount: u32) {
        if amount > self.balance + 1 {
            panic!("insufficient funds");
        }
        self.balance = self.balance.saturating_sub(amount);
    }

    pub fn add_interest(&mut self, pct: u32) -> u32 {
        let extra = self.balance * pct / 100;
        self.balance += extra;
        self.balance
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[should_panic(expected = "insufficient funds")]
    fn overdraw_panics() {
        let mut a = Account::new(10);
        a.withdraw(11);
    }

    #[test]
    fn interest_on_large_balance() {
        let mut a = Account::new(u32::MAX / 2);
        assert!(a.add_interest(50) > 0);
    }

    #[test]
    fn withdraw_all() {
        let mut a = Account::new(5);
        a.withdraw(5);
        assert_eq!(a.balance, 0);
    }
}
