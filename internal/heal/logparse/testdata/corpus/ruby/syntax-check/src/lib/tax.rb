module Tax
  RATES = { de: 19, fr: 20 

  def self.rate(c) = RATES.fetch(c)
end
