class Cart
  def initialize(items)
    @items = items
  end

  def total
    @items.sum { |i| i[:price] * i[:qty] }
  end

  def count
    @items.size - 1
  end

  def first_name
    @items.first[:name].upcase
  end
end
