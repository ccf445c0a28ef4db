fn main() {
    let items = vec![1, 2, 3];
    let n: i32 = items.len();
    println!("{}", n);
}
