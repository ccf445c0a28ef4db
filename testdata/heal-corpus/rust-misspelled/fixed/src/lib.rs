//! Run-length encoding of strings: "aaab" <-> "3a1b".

/// Encodes runs of the same character as count followed by the character.
pub fn encode(input: &str) -> String {
    let mut out = String::new();
    let mut chars = input.chars().peekable();
    while let Some(c) = chars.next() {
        let mut run = 1;
        while chars.peek() == Some(&c) {
            chars.next();
            run += 1;
        }
        out.push_str(&run.to_string());
        out.push(c);
    }
    out
}

/// Decodes the output of encode.
pub fn decode(input: &str) -> Result<String, String> {
    let mut out = String::new();
    let mut count = String::new();
    for c in input.chars() {
        if c.is_ascii_digit() {
            count.push(c);
            continue;
        }
        let n: usize = count.parse().map_err(|_| format!("no count before {c:?}"))?;
        out.extend(std::iter::repeat(c).take(n));
        count.clear();
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        assert_eq!(encode("aaabcc"), "3a1b2c");
        assert_eq!(decode("3a1b2c").unwrap(), "aaabcc");
        assert!(decode("a").is_err());
    }
}
