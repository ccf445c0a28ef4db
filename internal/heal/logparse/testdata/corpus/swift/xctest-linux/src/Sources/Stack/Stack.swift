public struct Stack<T> {
    var items: [T] = []

    public init() {}

    public mutating func push(_ x: T) {
        items.append(x)
    }

    public mutating func pop() -> T {
        items.removeFirst()
    }

    public var top: T {
        items.last!
    }
}
