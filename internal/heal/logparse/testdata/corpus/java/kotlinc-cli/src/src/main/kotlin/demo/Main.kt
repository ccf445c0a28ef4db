package demo

data class Order(val id: Int, val total: Double)

fun parse(line: String): Order {
    val parts = line.split(",")
    val id: Int = parts[0]
    return Order(id, parts[1].toDouble())
}

fun main() {
    val o = parse("1,2.5")
    prinltn(o)
}
