fn main() {
    let unused = 1;
    println!("ok");
}
