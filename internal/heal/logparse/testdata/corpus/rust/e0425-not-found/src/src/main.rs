fn main() {
    let total = 3;
    println!("{}", totl);
}
