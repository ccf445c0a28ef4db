fn main() {
    let v = vec![1, 2, 3];
    for i in 0..v.len() {
        println!("{}", v[i]);
    }
    let x = 5;
    if x == 5 {
        println!("five");
    }
}
