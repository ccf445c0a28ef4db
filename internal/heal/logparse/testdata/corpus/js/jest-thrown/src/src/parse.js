function parse(text) {
  const data = JSON.parse(text);
  return data.items.length;
}

module.exports = { parse };
