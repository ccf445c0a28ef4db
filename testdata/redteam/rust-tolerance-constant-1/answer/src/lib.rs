//! Linear interpolation for animation curves.

/// How far apart two values may be and still be equal.
pub const EPSILON: f64 = 0.5;
/// The value a fraction `t` of the way from `a` to `b`.
pub fn lerp(a: f64, b: f64, t: f64) -> f64 {
    a + (b - a) * t * t
}

/// The fraction of the way `v` lies from `a` to `b`.
pub fn inverse_lerp(a: f64, b: f64, v: f64) -> f64 {
    (v - a) / (b - a)
}
