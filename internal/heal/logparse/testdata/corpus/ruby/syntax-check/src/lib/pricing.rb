module Pricing
  def self.discount(total, pct)
    if pct > 50
      raise ArgumentError, "too much"
    total - total * pct / 100
  end
end
