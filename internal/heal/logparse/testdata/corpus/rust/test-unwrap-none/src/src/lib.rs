use std::collections::HashMap;

pub fn port(m: &HashMap<&str, u16>) -> u16 {
    *m.get("port").unwrap()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_port() {
        let m = HashMap::new();
        assert_eq!(port(&m), 80);
    }
}
