fn main() {
    let a = 1
    let b = 2;
    println!("{}", a + b);
}
