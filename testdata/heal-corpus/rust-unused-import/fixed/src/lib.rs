//! Parse and compare semantic versions (major.minor.patch).
#![deny(warnings)]

use std::fmt;
use std::str::FromStr;

/// A version number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Version {
    pub major: u64,
    pub minor: u64,
    pub patch: u64,
}

impl FromStr for Version {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let parts: Vec<&str> = s.trim_start_matches('v').split('.').collect();
        if parts.len() != 3 {
            return Err(format!("not major.minor.patch: {s}"));
        }
        let num = |p: &str| p.parse::<u64>().map_err(|e| format!("{p}: {e}"));
        Ok(Version { major: num(parts[0])?, minor: num(parts[1])?, patch: num(parts[2])? })
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_order() {
        let a: Version = "v1.2.3".parse().unwrap();
        let b: Version = "1.10.0".parse().unwrap();
        assert!(a < b);
        assert_eq!(a.to_string(), "1.2.3");
        assert!("1.2".parse::<Version>().is_err());
    }
}
