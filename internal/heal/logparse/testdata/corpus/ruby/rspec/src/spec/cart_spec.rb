require "cart"

RSpec.describe Cart do
  let(:cart) { Cart.new([{ price: 2, qty: 3, name: "pen" }]) }

  describe "#total" do
    it "multiplies price and quantity" do
      expect(cart.total).to eq(6)
    end
  end

  describe "#count" do
    it "counts the items" do
      expect(cart.count).to eq(1)
    end
  end

  describe "#first_name" do
    it "is nil for an empty cart" do
      expect(Cart.new([]).first_name).to be_nil
    end
  end
end
