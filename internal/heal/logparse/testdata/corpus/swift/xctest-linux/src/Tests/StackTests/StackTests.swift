import XCTest
@testable import Stack

final class StackTests: XCTestCase {
    func testPopReturnsLast() {
        var s = Stack<Int>()
        s.push(1)
        s.push(2)
        XCTAssertEqual(s.pop(), 2)
    }

    func testTopOfEmpty() {
        let s = Stack<Int>()
        XCTAssertNil(Optional(s.top))
    }
}
