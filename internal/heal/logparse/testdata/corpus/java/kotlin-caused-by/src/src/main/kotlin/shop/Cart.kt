package shop

class Cart(private val prices: Map<String, String>) {
    fun price(item: String): Int = prices.getValue(item).toInt()

    fun total(items: List<String>): Int =
        try {
            items.map { price(it) }.sum()
        } catch (e: NumberFormatException) {
            throw IllegalStateException("cart total failed", e)
        }
}

fun main() {
    val cart = Cart(mapOf("apple" to "3", "pear" to "four"))
    println(cart.total(listOf("apple", "pear")))
}
