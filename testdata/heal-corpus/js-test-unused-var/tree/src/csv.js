// splitLine splits one line of CSV into its fields: commas separate,
// double quotes enclose a field and "" inside quotes is one quote.
export function splitLine(line) {
  const fields = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quoted) {
      if (c === '"' && line[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c === '"') {
      quoted = true;
    } else if (c === ",") {
      fields.push(field);
      field = "";
    } else {
      field += c;
    }
  }
  if (quoted) {
    throw new Error("unterminated quote");
  }
  fields.push(field);
  return fields;
}
