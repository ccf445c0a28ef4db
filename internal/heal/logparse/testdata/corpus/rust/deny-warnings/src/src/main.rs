#![deny(warnings)]

fn main() {
    let unused = 5;
    println!("hi");
}
