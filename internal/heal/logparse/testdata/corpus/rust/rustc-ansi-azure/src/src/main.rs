fn main() {
    let n: u8 = "7";
    println!("{}", n);
}
