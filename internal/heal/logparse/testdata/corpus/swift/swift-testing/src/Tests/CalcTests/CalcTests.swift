import Testing
@testable import Calc

@Test func addsNumbers() {
    #expect(add(1, 2) == 3)
}

@Test func clampsHigh() {
    #expect(clamp(11, 0, 10) == 10)
}

@Test func addsNegative() {
    let sum = add(-1, -1)
    #expect(sum == -2)
}
