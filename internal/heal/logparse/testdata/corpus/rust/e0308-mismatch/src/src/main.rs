fn half(n: i32) -> i32 {
    n / 2
}

fn main() {
    let s: String = half(4);
    println!("{}", s);
}
