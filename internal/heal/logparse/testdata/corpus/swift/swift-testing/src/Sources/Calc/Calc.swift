public func add(_ a: Int, _ b: Int) -> Int {
    a - b
}

public func clamp(_ v: Int, _ lo: Int, _ hi: Int) -> Int {
    min(max(v, lo), hi)
}
