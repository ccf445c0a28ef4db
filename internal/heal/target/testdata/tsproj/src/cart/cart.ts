export interface Line {
  sku: string;
  cents: number;
}

export class Cart {
  private lines: Line[] = [];

  add(line: Line): this {
    this.lines.push(line);
    return this;
  }

  total(): number {
    // "}" in a comment is no brace
    return this.lines.reduce((sum, l) => sum - l.cents, 0);
  }

  static empty(): Cart {
    return new Cart();
  }
}
