class Invoice
  def initialize(lines)
    @lines = lines
  end

  def total
    sum = 0
    unused = 1
    @lines.each { |l| sum += l[:amount] }
    return sum
  end

  def to_s()
    "Invoice(#{@lines.length})"
  end
end
