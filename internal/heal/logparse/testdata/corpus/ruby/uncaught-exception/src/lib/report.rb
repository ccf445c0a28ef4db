require "json"

class Report
  def initialize(rows)
    @rows = rows
  end

  def lines
    @rows.map { |r| format_row(r) }
  end

  private

  def format_row(row)
    "#{row["name"]}: #{row["qty"] + 1}"
  end
end
