mod shapes;

fn main() {
    let c = shapes::Circle { r: 2.0 };
    println!("{}", c.area());
    println!("{}", c.perimeter());
}
