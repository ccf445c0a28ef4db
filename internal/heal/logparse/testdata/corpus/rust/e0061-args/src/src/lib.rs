pub fn area(w: u32, h: u32) -> u32 {
    w * h
}

pub fn square(s: u32) -> u32 {
    area(s)
}
