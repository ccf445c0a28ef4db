fn total(price: u32) -> u32 {
    price * quantity + shipping
}

fn main() {
    println!("{}", total(3));
}
