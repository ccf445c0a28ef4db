//! Small helpers over integer series.

/// Returns the last element of xs, or 0 when xs is empty.
pub fn last(xs: &[i32]) -> i32 {
    if xs.is_empty() {
        return 0;
    }
    xs[xs.len()]
}

/// Adds the elements of xs.
pub fn total(xs: &[i32]) -> i32 {
    xs.iter().sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn last_of_three() {
        assert_eq!(last(&[1, 2, 3]), 3);
    }

    #[test]
    fn total_of_three() {
        assert_eq!(total(&[1, 2, 3]), 6);
    }
}
