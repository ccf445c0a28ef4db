//! Percentiles of a sample.

/// Returns the p-th percentile (0..=100) of xs by the nearest-rank method.
pub fn percentile(xs: &[f64], p: f64) -> Option<f64> {
    if xs.is_empty() || !(0.0..=100.0).contains(&p) {
        return None;
    }
    let mut v = xs.to_vec();
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let rank = (p / 100.0 * v.len() as f64).ceil() as usize;
    Some(v[rank.max(1).min(v.len()) - 1])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank() {
        let xs = [15.0, 20.0, 35.0, 40.0, 50.0];
        assert_eq!(percentile(&xs, 30.0), Some(20.0));
        assert_eq!(percentile(&xs, 40.0), Some(20.0));
        assert_eq!(percentile(&xs, 100.0), Some(50.0));
        assert_eq!(percentile(&[], 50.0), None);
    }
}
