require "minitest/autorun"
require "cart"

class TestCart < Minitest::Test
  def setup
    @cart = Cart.new([{ price: 2, qty: 3, name: "pen" }])
  end

  def test_total
    assert_equal 6, @cart.total
  end

  def test_count
    assert_equal 1, @cart.count
  end

  def test_first_name_empty
    assert_nil Cart.new([]).first_name
  end
end
