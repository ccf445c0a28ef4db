function parse(s) {
  console.log("parsing", s);
  return JSON.parse(s).value;
}
function twice(n) { return n * 3; }
module.exports = { parse, twice };
