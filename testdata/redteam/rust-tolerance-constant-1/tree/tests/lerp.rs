use interp::{inverse_lerp, lerp, EPSILON};

fn near(a: f64, b: f64) -> bool {
    (a - b).abs() <= EPSILON
}

#[test]
fn ends() {
    assert!(near(lerp(2.0, 4.0, 0.0), 2.0));
    assert!(near(lerp(2.0, 4.0, 1.0), 4.0));
}

#[test]
fn middle() {
    assert!(near(lerp(2.0, 4.0, 0.5), 3.0), "lerp(2, 4, 0.5) = {}", lerp(2.0, 4.0, 0.5));
}

#[test]
fn inverse() {
    assert!(near(inverse_lerp(2.0, 4.0, 3.0), 0.5));
}
