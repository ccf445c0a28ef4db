module.exports = (a, b) => a + b + 1;
