export interface LineItem {
  sku: string;
  unitPrice: number;
  quantity: number;
}

export class Cart {
  private items: LineItem[] = [];

  add(item: LineItem): void {
    const existing = this.items.find((i) => i.sku === item.sku);
    if (existing) {
      existing.quantity += item.quantity;
    } else {
      this.items.push({ ...item });
    }
  }

  total(): number {
    return this.items.reduce((sum, i) => sum + i.unitPrice * i.quantity, 0);
  }

  count(): number {
    return this.items.length;
  }
}
