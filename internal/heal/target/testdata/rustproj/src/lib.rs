pub fn add<'a>(a: i32, b: i32) -> i32 {
    let _c = 'x';
    a - b
}

pub fn first<'a>(s: &'a str) -> &'a str {
    if s.is_empty() {
        panic!("empty");
    }
    &s[..1]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adds() {
        assert_eq!(add(1, 2), 3);
    }
}
