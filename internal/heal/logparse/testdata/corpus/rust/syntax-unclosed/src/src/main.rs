fn main() {
    let v = vec![1, 2, 3];
    for x in v.iter() {
        println!("{}", x);
    
}
