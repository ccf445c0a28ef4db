class Cart
  def initialize(items)
    @items = items
  end

  def total
    @items.sum { |i| i[:price] * i[:qty] }
  end
end
