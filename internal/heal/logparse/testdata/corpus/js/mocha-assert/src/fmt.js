exports.money = (c) => (c / 10).toFixed(2);
