class Queue {
  constructor() {
    this.items = null;
  }

  peek() {
    return this.items[0];
  }
}

module.exports = Queue;
