pub fn parse(s: &str) -> i32 {
    s.parse().unwrap()
}

pub fn div(a: i32, b: i32) -> i32 {
    a / b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses() {
        assert_eq!(parse("x"), 1);
    }

    #[test]
    fn divides() {
        assert_eq!(div(1, 0), 0);
    }

    #[test]
    fn fine() {
        assert!(div(4, 2) == 2, "four halves");
    }

    #[test]
    fn msg() {
        assert!(div(4, 2) == 3, "expected {} to be 3", div(4, 2));
    }
}
