use std::collections::HashMapp;

fn main() {
    let m: HashMapp<u8, u8> = HashMapp::new();
    println!("{}", m.len());
}
